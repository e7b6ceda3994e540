# acre-conf.awk -- a slapd.conf of OpenLDAP's test suite with the access
# rules of each `database mdb` section moved into an acre policy file and
# `overlay acre` added (make check-openldap-suite: run-suite.sh).
#
#   awk -v so=ACRE_SO -v policy=PREFIX -f acre-conf.awk < slapd.conf
#
# Schema includes are copied to the top of each policy file (acre must
# know the types the rules and entries use).  Global rules stay in the
# configuration (slapd applies them to the
# frontend and to the other databases) and are copied to the top of each
# policy file, outside any section, where acre appends them to the
# database's own as slapd does.  Each mdb database's rules go to
# PREFIX.N below `database mdb` and its suffixes; natively the database
# then has `access to * by * manage`, so that acre alone decides.
function flush_db() {
	if (!in_mdb)
		return
	f = policy "." ndb
	printf "%s", global > f
	printf "database mdb\n%s%s", suffixes, rules > f
	close(f)
	print "access to * by * manage"
	print "overlay acre"
	print "acre-policy " f
	in_mdb = 0
}
BEGIN { print "moduleload " so; in_mdb = 0; ndb = 0; cont = 0 }
{
	if (cont && $0 ~ /^[ \t]+[^ \t]/) { # an access rule's next line
		if (in_mdb)
			rules = rules $0 "\n"
		else {
			global = global $0 "\n"
			print
		}
		next
	}
	cont = 0
}
/^database[ \t]/ {
	flush_db()
	seen_db = 1
	if ($2 == "mdb") {
		in_mdb = 1
		ndb++
		rules = ""
		suffixes = ""
	}
	print
	next
}
/^access[ \t]/ {
	cont = 1
	if (in_mdb)
		rules = rules $0 "\n"
	else {
		if (!seen_db)
			global = global $0 "\n"
		print
	}
	next
}
/^suffix[ \t]/ && in_mdb { suffixes = suffixes $0 "\n" }
/^include[ \t]/ && !seen_db { global = global $0 "\n" } # schemas
{ print }
END { flush_db() }
