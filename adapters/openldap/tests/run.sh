#!/bin/bash
# run.sh -- `make check-openldap-module`: slapo-acre in Debian's slapd,
# checked with the real clients against an expected transcript.
#
#   adapters/openldap/tests/run.sh ACRE_SO OUTDIR
#
# Writes a slapd.conf of its own (back-mdb in OUTDIR, `access to * by *
# manage` natively, then `overlay acre` with tests/policy.conf's rules as
# the rules of the database (OUTDIR/policy.conf: a database section with
# the suffix, then tests/policy.conf; slapd's own ldap:/// set elements
# search the database that holds the URL's base, and acre knows it from
# the policy's sections), and a
# config database so cn=config can be changed), and checks, in order:
#   1. bad configurations: a policy that does not compile, a missing
#      policy file, an overlay without acre-policy -- slaptest refuses
#      each with acre's message, and slapd refuses to start;
#   2. the good one: slapadd tests/data.ldif, slapd on a free port of
#      127.0.0.1 (stopped by PID, tests/differential/slapd.sh), then
#      ldapsearch, ldapcompare, ldapmodify, ldapadd, ldapmodrdn,
#      ldapdelete and ldapwhoami as anonymous, users, a group member and
#      the rootdn; filter probes on attributes the requester may not
#      search;
#   3. the policy replaced through cn=config: a file that does not compile
#      is refused and the old policy stays; a good one takes effect; the
#      same path again re-reads the file;
#   4. collective attributes, each search compared with acre search;
#   5. with slapd's memberof overlay, a filter= rule on memberOf, against
#      slapd with the same rules as its own.
# The transcript (OUTDIR/transcript) must equal tests/expected.out.
# Exit status 0 when it does, 1 when not, 2 when the harness failed.
set -u
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../../.." && pwd)
. "$src/tests/differential/slapd.sh"

[ $# = 2 ] || { echo "usage: $0 ACRE_SO OUTDIR" >&2; exit 2; }
so=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
out=$2
slapd_require || exit 2
rm -rf "$out"
mkdir -p "$out/db" || exit 2
out=$(cd "$out" && pwd)
T=$out/transcript
: >"$T"
base=dc=example,dc=com
people=ou=people,$base
SLAPD_SUFFIX=$base
SLAPD_ROOTDN=cn=admin,$base
SLAPD_ROOTPW=$(slapd_random_hex)
alice=uid=alice,$people
bob=uid=bob,$people

say() { printf '%s\n' "$*" >>"$T"; }

# conf POLICY-LINE [NATIVE] -- the configuration, with POLICY-LINE after
# `overlay acre`; with NATIVE, slapd's own rules from that file instead
# (global rules, as acre reads a file without a database section)
conf() {
	local native=${2:-}
	cat <<CONF
include /etc/ldap/schema/core.schema
include /etc/ldap/schema/cosine.schema
include /etc/ldap/schema/inetorgperson.schema
include /etc/ldap/schema/nis.schema
include /etc/ldap/schema/collective.schema
include $here/subentry.schema
pidfile $out/slapd.pid
argsfile $out/slapd.args
modulepath /usr/lib/ldap
moduleload back_mdb
moduleload $so
${native:+include $native}

database config
rootdn cn=config
rootpw $SLAPD_ROOTPW

database mdb
suffix "$base"
rootdn "$SLAPD_ROOTDN"
rootpw $SLAPD_ROOTPW
directory $out/db
maxsize 104857600
CONF
	[ -n "$native" ] || printf '%s\n' "access to * by * manage" "overlay acre" "$1"
}

# Paths and ports change from run to run: the transcript names neither.
clean() {
	sed -e "s|$out|OUT|g" -e "s|$here|TESTS|g" -e 's|^[0-9a-f]\{8\} ||'
}

# refused NAME POLICY-LINE -- slaptest and slapd must both refuse it
refused() {
	local f=$out/$1.conf rc pid i
	conf "$2" >"$f"
	say "## bad configuration: $1"
	/usr/sbin/slaptest -f "$f" >"$out/$1.slaptest" 2>&1
	rc=$?
	say "slaptest exit $rc"
	grep -o 'acre[^!]*' "$out/$1.slaptest" | clean | sort -u >>"$T"
	"$SLAPD_BIN" -d 0 -h "ldap://127.0.0.1:1/" -f "$f" \
		>"$out/$1.slapd" 2>&1 </dev/null &
	pid=$!
	for i in $(seq 1 100); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.05
	done
	if kill -0 "$pid" 2>/dev/null; then
		say "slapd started: WRONG"
		kill "$pid"
	fi
	wait "$pid"
	say "slapd exit $?"
}

# q LABEL CMD... -- run a client, record its output and exit status
q() {
	say "## $1"
	shift
	"$@" >"$out/q.out" 2>&1
	local rc=$?
	clean <"$out/q.out" >>"$T"
	say "exit $rc"
}

S() { # S WHO(anon|DN) PW ARGS... -- ldapsearch
	local who=$1 pw=$2
	shift 2
	if [ "$who" = anon ]; then
		ldapsearch -x -H "$SLAPD_URI" -LLL -o ldif-wrap=no "$@"
	else
		ldapsearch -x -H "$SLAPD_URI" -D "$who" -w "$pw" -LLL \
			-o ldif-wrap=no "$@"
	fi
}

M() { # M TOOL DN PW ARGS... -- another client as DN
	local tool=$1 dn=$2 pw=$3
	shift 3
	"$tool" -x -H "$SLAPD_URI" -D "$dn" -w "$pw" "$@"
}

# ---- 1. bad configurations ---------------------------------------------
# (on a database that exists: slaptest opens it read-only)
printf 'database mdb\nsuffix "%s"\n' "$base" | cat - "$here/policy.conf" \
	>"$out/policy.conf"
conf "acre-policy $out/policy.conf" >"$out/slapd.conf"
/usr/sbin/slapadd -q -f "$out/slapd.conf" -l "$here/data.ldif" \
	>"$out/slapadd.log" 2>&1 || { cat "$out/slapadd.log"; exit 2; }
refused policy-bad "acre-policy $here/policy-bad.conf"
refused policy-missing "acre-policy $out/no-such-policy.conf"
refused no-policy ""

# ---- 2. the module at work -----------------------------------------------
# start [NATIVE] -- a fresh database, slapd with acre (or slapd's own
# rules from NATIVE) on it
start() {
	conf "acre-policy $out/policy.conf" "${1:-}" >"$out/slapd.conf"
	rm -rf "$out/db" && mkdir "$out/db" || exit 2
	say "## good configuration"
	/usr/sbin/slaptest -u -f "$out/slapd.conf" >"$out/slaptest.log" 2>&1
	say "slaptest exit $?"
	/usr/sbin/slapadd -q -f "$out/slapd.conf" -l "$here/data.ldif" \
		>"$out/slapadd.log" 2>&1 || { cat "$out/slapadd.log"; exit 2; }
	slapd_use_dir "$out"
	slapd_start || exit 2
}

# the checks of section 2, into the transcript
clients() {

for who in anon "$bob" "$alice" "$SLAPD_ROOTDN"; do
	case $who in
	anon) pw= ;;
	"$bob") pw=bobpw ;;
	"$alice") pw=alicepw ;;
	*) pw=$SLAPD_ROOTPW ;;
	esac
	q "search all as $who" S "$who" "$pw" -b "$base" '(objectClass=*)'
	q "probe telephoneNumber as $who" S "$who" "$pw" -b "$people" \
		'(telephoneNumber=555*)' 1.1
	q "probe userPassword as $who" S "$who" "$pw" -b "$people" \
		'(userPassword=bobpw)' 1.1
	q "search ou=secret as $who" S "$who" "$pw" -b "ou=secret,$base" \
		'(objectClass=*)' 1.1
done
q "whoami as bob" ldapwhoami -x -H "$SLAPD_URI" -D "$bob" -w bobpw
q "bad password" ldapwhoami -x -H "$SLAPD_URI" -D "$bob" -w nope
q "compare carol's phone as bob (=c)" M ldapcompare "$bob" bobpw \
	"uid=carol,$people" telephoneNumber:555-0103
q "compare carol's phone as anonymous" ldapcompare -x -H "$SLAPD_URI" \
	"uid=carol,$people" telephoneNumber:555-0103
q "compare carol's sn as bob" M ldapcompare "$bob" bobpw \
	"uid=carol,$people" sn:Cooper
q "bob changes his phone (self write)" M ldapmodify "$bob" bobpw <<LDIF
dn: $bob
changetype: modify
replace: telephoneNumber
telephoneNumber: 555-0202
LDIF
q "bob changes carol's sn" M ldapmodify "$bob" bobpw <<LDIF
dn: uid=carol,$people
changetype: modify
replace: sn
sn: Changed
LDIF
q "alice (staff) changes carol's sn" M ldapmodify "$alice" alicepw <<LDIF
dn: uid=carol,$people
changetype: modify
replace: sn
sn: Cooper-Smith
LDIF
dave="dn: uid=dave,$people
objectClass: inetOrgPerson
uid: dave
cn: Dave Dale
sn: Dale"
q "bob adds dave" M ldapadd "$bob" bobpw <<<"$dave"
q "alice adds dave" M ldapadd "$alice" alicepw <<<"$dave"
q "bob renames dave" M ldapmodrdn "$bob" bobpw "uid=dave,$people" uid=dan
q "alice renames dave" M ldapmodrdn "$alice" alicepw -r "uid=dave,$people" \
	uid=dan
q "bob deletes dan" M ldapdelete "$bob" bobpw "uid=dan,$people"
q "alice deletes dan" M ldapdelete "$alice" alicepw "uid=dan,$people"
q "alice changes the plan" M ldapmodify "$alice" alicepw <<LDIF
dn: cn=plan,ou=secret,$base
changetype: modify
replace: description
description: the new plan
LDIF
q "bob changes the plan" M ldapmodify "$bob" bobpw <<LDIF
dn: cn=plan,ou=secret,$base
changetype: modify
replace: description
description: bob's plan
LDIF
q "people after the changes, as the rootdn" S "$SLAPD_ROOTDN" \
	"$SLAPD_ROOTPW" -b "$people" '(objectClass=*)' sn telephoneNumber
}

# Stock slapd with the same rules gives the same answers, first.
T=$out/native
: >"$T"
start "$here/policy.conf"
clients
slapd_stop
T=$out/transcript
n=$(wc -l <"$T")
start
clients
if ! tail -n +$((n + 1)) "$T" | diff -u "$out/native" -; then
	echo "check-openldap-module: slapd with acre answers differently from" \
		"slapd with its own rules (above)"
	exit 1
fi

# ---- 3. the policy replaced through cn=config --------------------------
q "olcAcrePolicy" S cn=config "$SLAPD_ROOTPW" -b cn=config \
	'(objectClass=olcAcreConfig)' olcAcrePolicy
q "replace with a policy that does not compile" M ldapmodify cn=config \
	"$SLAPD_ROOTPW" <<LDIF
dn: olcOverlay={0}acre,olcDatabase={1}mdb,cn=config
changetype: modify
replace: olcAcrePolicy
olcAcrePolicy: $here/policy-bad.conf
LDIF
q "bob's mail as alice, old policy" S "$alice" alicepw -b "$bob" -s base \
	'(objectClass=*)' mail
q "replace with policy2.conf" M ldapmodify cn=config "$SLAPD_ROOTPW" <<LDIF
dn: olcOverlay={0}acre,olcDatabase={1}mdb,cn=config
changetype: modify
replace: olcAcrePolicy
olcAcrePolicy: $here/policy2.conf
LDIF
q "bob's mail as alice, new policy" S "$alice" alicepw -b "$bob" -s base \
	'(objectClass=*)' mail
q "bob's mail as bob, new policy" S "$bob" bobpw -b "$bob" -s base \
	'(objectClass=*)' mail
q "olcAcrePolicy after" S cn=config "$SLAPD_ROOTPW" -b cn=config \
	'(objectClass=olcAcreConfig)' olcAcrePolicy
# replacing with the same path re-reads the file
printf 'access to attrs=userPassword\n\tby self write\n\tby anonymous auth\n%s\n' \
	'access to * by users read by anonymous read' >"$out/live.conf"
live() {
	M ldapmodify cn=config "$SLAPD_ROOTPW" <<LDIF
dn: olcOverlay={0}acre,olcDatabase={1}mdb,cn=config
changetype: modify
replace: olcAcrePolicy
olcAcrePolicy: $out/live.conf
LDIF
}
q "replace with live.conf" live
q "bob's mail as alice, live.conf" S "$alice" alicepw -b "$bob" -s base \
	'(objectClass=*)' mail
cat "$here/policy2.conf" >"$out/live.conf"
q "replace with live.conf again, the file now policy2.conf's" live
q "bob's mail as alice, live.conf changed" S "$alice" alicepw -b "$bob" \
	-s base '(objectClass=*)' mail
slapd_stop

# ---- 4. collective attributes --------------------------------------------
# The suffix an administrative point with two collective subentries;
# searches as users and anonymous, each compared with what `acre search`
# prints for the same rules on the database's content (slapcat), then
# the subentries changed: the next search shows each change.  Debian's
# slapd 2.5 is built without LDAP_COLLECTIVE_ATTRIBUTES: it refuses
# administrativeRole, and c-* values outside its own (absent)
# collectiveAttributeSubentry class, in protocol adds, modifies and
# renames, so the subentries are loaded by slapadd without schema checks
# (tests/subentry.schema names the class for acre's sake) and changed
# through the protocol by a delete and a policy replacement.
conf "acre-policy $out/policy.conf" >"$out/slapd.conf"
rm -rf "$out/db" && mkdir "$out/db" || exit 2
{
	sed '0,/^o: Example$/s//o: Example\nadministrativeRole: 2.5.23.5/' \
		"$here/data.ldif"
	cat <<LDIF

dn: cn=locality,$base
objectClass: top
objectClass: subentry
objectClass: collectiveAttributeSubentry
cn: locality
subtreeSpecification: {base "ou=people", specificationFilter item:inetOrgPerson}
c-l: Springfield

dn: cn=post,$base
objectClass: top
objectClass: subentry
objectClass: collectiveAttributeSubentry
cn: post
subtreeSpecification: {base "ou=people", specificExclusions { chopBefore:"uid=carol" }, minimum 1}
c-PostalCode: 12345
LDIF
} >"$out/data-area.ldif"
/usr/sbin/slapadd -s -q -f "$out/slapd.conf" -l "$out/data-area.ldif" \
	>"$out/slapadd.log" 2>&1 || { cat "$out/slapadd.log"; exit 2; }
printf 'database mdb\nsuffix "%s"\n' "$base" |
	cat - "$here/policy2.conf" >"$out/policy2.conf"
slapd_start || exit 2
acre_bin=$src/build/acre
coll_policy=$out/policy.conf
# AS WHO PW ARGS... -- an ldapsearch, checked against acre search (the
# entries compared in a sorted order: the two walk the tree differently)
# entryDN, subschemaSubentry and hasSubordinates are slapd's own, not in
# acre's data; collectiveAttributeSubentries (and collectiveExclusions)
# are types Debian's slapd does not have (built without
# LDAP_COLLECTIVE_ATTRIBUTES, and a schema file may not define an
# operational type), so the module cannot return them.  The data went
# in with slapadd -s, which stores no structuralObjectClass; acre's LDIF
# load adds it as a plain slapadd does, so it is left out too.
entries() {
	grep -v '^\(entryDN\|subschemaSubentry\|hasSubordinates\|collectiveAttributeSubentries\|structuralObjectClass\): ' "$1" |
		awk 'BEGIN { RS = ""; ORS = "\n" } { gsub(/\n/, "\001"); print }' |
		sort
}
AS() {
	local who=$1 pw=$2 d=() rc
	shift 2
	S "$who" "$pw" "$@" >"$out/coll.slapd" 2>&1
	rc=$?
	cat "$out/coll.slapd"
	echo "exit $rc"
	/usr/sbin/slapcat -f "$out/slapd.conf" -l "$out/coll.ldif" 2>/dev/null
	[ "$who" = anon ] || d=(-D "$who")
	"$acre_bin" search --policy "$coll_policy" --data "$out/coll.ldif" \
		"${d[@]}" -o ldif-wrap=no "$@" 2>"$out/coll.acre.err" | grep -v "^# result" \
		>"$out/coll.acre"
	if diff -u <(entries "$out/coll.acre") <(entries "$out/coll.slapd") \
		>"$out/coll.diff"; then
		echo "same as acre search"
	else
		echo "differs from acre search:"
		cat "$out/coll.diff"
	fi
}
qa() { # qa LABEL WHO PW ARGS... -- AS into the transcript (less the
	# values that change from run to run)
	say "## $1"
	shift
	AS "$@" 2>&1 | clean | grep -v \
		'^\(entryUUID\|entryCSN\|createTimestamp\|modifyTimestamp\): ' \
		>>"$T"
}
qa "people with collective values, as alice" "$alice" alicepw -b "$people" \
	'(objectClass=*)' '*' +
qa "people, all user attributes, as bob" "$bob" bobpw -b "$people" \
	'(objectClass=inetOrgPerson)'
qa "filter on a collective value, as bob" "$bob" bobpw -b "$base" \
	'(c-l=Springfield)' cn c-l
qa "filter on two collective values, as bob" "$bob" bobpw -b "$base" \
	'(&(c-l=Spring*)(!(c-PostalCode=12345)))' c-l c-PostalCode
qa "filter on a collective value, anonymous (search, not read)" anon "" \
	-b "$base" '(&(c-l=Spring*)(uid=*))' c-l
qa "negated filter on a collective value, as bob" "$bob" bobpw -b "$base" \
	'(!(c-l=Springfield))' 1.1
q "the subentry cn=post deleted" M ldapdelete "$SLAPD_ROOTDN" \
	"$SLAPD_ROOTPW" "cn=post,$base"
qa "after the delete, as alice" "$alice" alicepw -b "$people" \
	'(|(c-l=*)(c-PostalCode=*))' c-l c-PostalCode +
q "replace the policy with policy2.conf" M ldapmodify cn=config \
	"$SLAPD_ROOTPW" <<LDIF
dn: olcOverlay={0}acre,olcDatabase={1}mdb,cn=config
changetype: modify
replace: olcAcrePolicy
olcAcrePolicy: $out/policy2.conf
LDIF
coll_policy=$out/policy2.conf
qa "policy2.conf, as alice" "$alice" alicepw -b "$people" '(c-l=*)' c-l
q "the subentry cn=locality deleted" M ldapdelete "$SLAPD_ROOTDN" \
	"$SLAPD_ROOTPW" "cn=locality,$base"
qa "after the second delete, as alice" "$alice" alicepw -b "$people" \
	'(objectClass=*)' c-l
slapd_stop

# ---- 5. memberOf of slapd's memberof overlay ---------------------------
# With the overlay loaded, slapd's memberOf is a DN with an equality rule,
# operational (msuser.schema's, acre's built-in one, has no rule): the
# module takes slapd's definition, so a filter= rule on memberOf selects
# the entries that store the group, under acre as under slapd's own
# rules, and memberOf is returned when asked for by name.
printf '%s\naccess to filter=(memberOf=cn=staff,ou=groups,%s)\n\tby * read\n%s\n' \
	'access to attrs=userPassword by anonymous auth by * none' "$base" \
	'access to * by * search' >"$out/memberof-rules.conf"
printf 'database mdb\nsuffix "%s"\n' "$base" |
	cat - "$out/memberof-rules.conf" >"$out/memberof.conf"
sed "/^dn: $alice\$/a memberOf: cn=staff,ou=groups,$base" "$here/data.ldif" \
	>"$out/data-memberof.ldif"
memberof() { # memberof [NATIVE] -- slapd with the overlay, checked
	conf "acre-policy $out/memberof.conf" "${1:-}" |
		sed -e 's|^moduleload back_mdb$|&\nmoduleload memberof|' \
			-e 's|^maxsize 104857600$|&\noverlay memberof|' \
			>"$out/slapd.conf"
	rm -rf "$out/db" && mkdir "$out/db" || exit 2
	/usr/sbin/slapadd -q -f "$out/slapd.conf" -l "$out/data-memberof.ldif" \
		>"$out/slapadd.log" 2>&1 || { cat "$out/slapadd.log"; exit 2; }
	slapd_use_dir "$out"
	slapd_start || exit 2
	q "memberof: the entries filter=(memberOf=...) selects, anonymous" \
		S anon "" -b "$base" '(objectClass=*)' 1.1
	q "memberof: alice as bob, all user attributes" S "$bob" bobpw \
		-b "$alice" -s base '(objectClass=*)'
	q "memberof: alice as bob, memberOf" S "$bob" bobpw -b "$alice" \
		-s base '(objectClass=*)' memberOf
	slapd_stop
}
# as_native FN RULES WHAT -- FN's checks with slapd's own rules (RULES,
# into a transcript of their own), then with acre's (into the
# transcript): the two must read the same
as_native() {
	T=$out/native-$1
	: >"$T"
	"$1" "$2"
	T=$out/transcript
	local n
	n=$(wc -l <"$T")
	"$1"
	if ! tail -n +$((n + 1)) "$T" | diff -u "$out/native-$1" -; then
		echo "check-openldap-module: $3, slapd with acre answers" \
			"differently from slapd with its own rules (above)"
		exit 1
	fi
}
as_native memberof "$out/memberof-rules.conf" "with the memberof overlay"

# ---- 6. the operational attributes slapd computes ----------------------
# slapd checks entryDN, subschemaSubentry and hasSubordinates without a
# value, then the value in the state that check left: the attribute's
# answer stands unless a clause with "self" access was reached, and the
# value's check resumes after the last rule that broke, so the val= rules
# before it never apply (subschemaSubentry: decided by the rule after
# them; entryDN: passed by), while the one on hasSubordinates after it
# does.
cat >"$out/computed-rules.conf" <<RULES
access to attrs=userPassword by anonymous auth by * none
access to attrs=entryDN val.regex=".*" by * none
access to attrs=subschemaSubentry val.regex=".*" by * none
access to attrs=subschemaSubentry by * read
access to * by * +0 break
access to attrs=hasSubordinates val=TRUE by * none
access to * by self selfnone by * read
RULES
printf 'database mdb\nsuffix "%s"\n' "$base" |
	cat - "$out/computed-rules.conf" >"$out/computed.conf"
computed() { # computed [NATIVE] -- the rules of computed.conf, checked
	conf "acre-policy $out/computed.conf" "${1:-}" >"$out/slapd.conf"
	rm -rf "$out/db" && mkdir "$out/db" || exit 2
	/usr/sbin/slapadd -q -f "$out/slapd.conf" -l "$here/data.ldif" \
		>"$out/slapadd.log" 2>&1 || { cat "$out/slapadd.log"; exit 2; }
	slapd_use_dir "$out"
	slapd_start || exit 2
	q "computed: entryDN, hasSubordinates, subschemaSubentry as bob" S \
		"$bob" bobpw -b "$base" '(objectClass=*)' entryDN \
		hasSubordinates subschemaSubentry
	slapd_stop
}
as_native computed "$out/computed-rules.conf" \
	"on the attributes slapd computes"

if [ "${ACRE_UPDATE_EXPECTED:-}" = 1 ]; then
	cp "$T" "$here/expected.out"
fi
if diff -u "$here/expected.out" "$T"; then
	echo "check-openldap-module: ok ($(grep -c '^## ' "$T") checks)"
	exit 0
fi
echo "check-openldap-module: the transcript differs (above); $T"
exit 1
