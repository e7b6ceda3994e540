#!/bin/bash
# unchecked.sh -- size.unchecked: `acre search` against ldapsearch on
# generated back-mdb indexes, entries and filters.  slapd refuses a
# search (adminLimitExceeded, 11) when both its index candidates and the
# entries in scope pass the requester's size.unchecked; acre must answer
# the same, or say it cannot count them (exit 201, counted, not a
# failure: an item whose index keys acre does not reproduce).  When both
# answer, they must return the same entries: back-mdb searches only its
# candidates, which can leave out matching entries (an ordered walk
# stopped at the limit, a failed approximate key).
#
#   tests/differential/unchecked.sh ACRE OUTDIR [SEED] [N]
#
# Each case (N, default 10, of run SEED, default a fresh random seed,
# printed) writes OUTDIR/seed-SEED/case-K: slapd.conf (what slapd ran),
# acre.conf (the same without the lines for slapd's process), data.ldif
# (both databases), searches (base|scope|filter) and results (one line
# per search and limit: the two exit statuses and 1 when the entries are
# the same; entries-K: the differences).  The requesters are
# cn=limN,o=users, in a database of their own, with size.unchecked=N,
# and cn=limfree,o=users without a limit.  Each case comes from SEED and
# its number alone (no $RANDOM in a subshell: bash reseeds it there).
# The last line is "differential-unchecked: seed S: C cases, P searches,
# U unsupported, F differ"; exit status 0 only when F is 0 and some
# searches were compared.
set -u
here=$(cd "$(dirname "$0")" && pwd)
acre=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
out=$2
seed=${3:-}
n=${4:-}
[ -n "$seed" ] || seed=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
[ -n "$n" ] || n=10
echo "differential-unchecked: seed $seed, $n cases (rerun: make differential-unchecked SEED=$seed N=$n)"
. "$here/slapd.sh"
slapd_have_tools || { slapd_log "slapd and ldap-utils are not installed"; exit 2; }
mkdir -p "$out" || exit 2
out=$(cd "$out" && pwd)
rm -rf "$out/seed-$seed"

LIMS="1 2 3 4 6 9 14"
TOP=dc=example,dc=com
CN=("Ann" "ann" "Ann Lee" "Bob" "bob smith" "Bo" "Carla Diaz" "carla" "x")
SN=("lee" "Lee" "smith" "diaz" "x")
MAIL=("a@example.com" "A@Example.COM" "bob@test.org" "c@example.com")
UID_=("a" "A" "b" "c1" "c2")
DESC=("hello world" "Hello" "HELLO WORLD" "x y")
TEL=("+1 555 0100" "+15550100" "555-0101")
DQ=("a" "B" "m" "Mm" "z") # dnQualifier: ordered by caseIgnoreOrderingMatch
# createTimestamp, on every entry (slapadd would add the time of the load):
# before 1970 and on the two days whose last seconds' index keys wrap
TS=("18500615120000Z" "19050606180000Z" "19050606190000Z" "19691231235959Z"
	"19700101000000Z" "20000101000000Z" "20410713010000Z" "20410713020000Z"
	"20410714000000Z" "20200101000000Z")
NUM=("-3" "0" "5" "5" "7" "100" "1000" "99999999" "123456789" "1073741823"
	"1073741824" "-1073741824" "-1073741825" "4294967296" "99999999999"
	"123456789012" "-98765432109" "1234567890123456789"
	"98765432109876543210") # integers: keys exact below 2^30, then shortened
CLASSES=(person inetOrgPerson organizationalPerson groupOfNames
	organizationalUnit top organization dcObject)

pick() { # pick ARRAY-NAME: one of its elements, into $p
	local -n arr=$1
	p=${arr[RANDOM % ${#arr[@]}]}
}

# ---- one case --------------------------------------------------------------

gen_data() {
	local o k kind m no nk nm
	dns=("$TOP")
	pick TS
	printf 'dn: %s\nobjectClass: dcObject\nobjectClass: organization\no: Example\ndc: example\ncreateTimestamp: %s\n\n' "$TOP" "$p"
	no=$((2 + RANDOM % 2))
	for o in $(seq 1 $no); do
		pick TS
		printf 'dn: ou=o%s,%s\nobjectClass: organizationalUnit\nou: o%s\ncreateTimestamp: %s\n\n' "$o" "$TOP" "$o" "$p"
		dns+=("ou=o$o,$TOP")
		nk=$((RANDOM % 5))
		for k in $(seq 1 $nk); do
			kind=$((RANDOM % 4))
			if [ $kind = 0 ]; then
				pick CN
				printf 'dn: cn=g%s%s,ou=o%s,%s\nobjectClass: groupOfNames\ncn: g%s%s\ncn: %s\n' "$o" "$k" "$o" "$TOP" "$o" "$k" "$p"
				nm=$((1 + RANDOM % 2))
				for m in $(seq 1 $nm); do
					printf 'member: %s\n' "${dns[RANDOM % ${#dns[@]}]}"
				done
				pick TS; printf 'createTimestamp: %s\n\n' "$p"
				dns+=("cn=g$o$k,ou=o$o,$TOP")
				continue
			fi
			printf 'dn: uid=p%s%s,ou=o%s,%s\n' "$o" "$k" "$o" "$TOP"
			case $kind in
			1) printf 'objectClass: inetOrgPerson\n' ;;
			2) printf 'objectClass: organizationalPerson\nobjectClass: extensibleObject\n' ;;
			3) printf 'objectClass: person\nobjectClass: extensibleObject\n' ;;
			esac
			printf 'uid: p%s%s\n' "$o" "$k"
			pick CN; printf 'cn: %s\n' "$p"
			[ $((RANDOM % 3)) = 0 ] && { pick CN; printf 'cn;lang-en: %s\n' "$p"; }
			pick SN; printf 'sn: %s\n' "$p"
			[ $((RANDOM % 2)) = 0 ] && { pick MAIL; printf 'mail: %s\n' "$p"; }
			[ $((RANDOM % 2)) = 0 ] && { pick UID_; printf 'uid: %s\n' "$p"; }
			[ $((RANDOM % 2)) = 0 ] && { pick DESC; printf 'description: %s\n' "$p"; }
			[ $((RANDOM % 2)) = 0 ] && { pick TEL; printf 'telephoneNumber: %s\n' "$p"; }
			[ $kind != 1 ] && [ $((RANDOM % 2)) = 0 ] && { pick DQ; printf 'dnQualifier: %s\n' "$p"; }
			[ $kind != 1 ] && [ $((RANDOM % 2)) = 0 ] && { pick NUM; printf 'uidNumber: %s\n' "$p"; }
			[ $kind != 1 ] && [ $((RANDOM % 3)) = 0 ] && { pick NUM; printf 'gidNumber: %s\n' "$p"; }
			pick TS; printf 'createTimestamp: %s\n\n' "$p"
			dns+=("uid=p$o$k,ou=o$o,$TOP")
		done
	done
}

gen_indexes() {
	local a t
	local -a types=(eq pres sub pres,eq eq,sub pres,eq,sub subinitial subany
		subfinal eq,notags eq,nosubtypes pres,notags,nosubtypes)
	local -a mtypes=(eq pres pres,eq eq,notags eq,nosubtypes) # no sub
	local def=0
	[ $((RANDOM % 4)) != 0 ] && echo "index objectClass eq"
	[ $((RANDOM % 5)) = 0 ] && def=1 && echo "index default pres,eq"
	for a in cn sn mail uid description telephoneNumber member dnQualifier \
		uidNumber gidNumber createTimestamp; do
		[ $((RANDOM % 2)) = 0 ] && continue
		t=${types[RANDOM % ${#types[@]}]}
		case $a in member | uidNumber | gidNumber | createTimestamp) t=${mtypes[RANDOM % ${#mtypes[@]}]} ;; esac
		case $a:$((RANDOM % 6)) in # approx: the types with an approx rule
		cn:0 | sn:0 | uid:0 | mail:0 | description:0) t=$t,approx ;;
		esac
		t=$(echo "$t" | tr -s ',' | sed 's/^,//; s/,$//')
		[ -n "$t" ] || t=eq
		if [ $def = 1 ] && [ $((RANDOM % 3)) = 0 ]; then
			echo "index $a"
		else
			echo "index $a $t"
		fi
	done
}

# a value, or a piece of one for substrings
value() {
	local -a pools=(CN SN MAIL UID_ DESC TEL)
	case $1 in
	cn) pick CN ;; sn) pick SN ;; mail) pick MAIL ;; uid) pick UID_ ;;
	description) pick DESC ;; telephoneNumber) pick TEL ;; dnQualifier) pick DQ ;;
	*) pick "${pools[RANDOM % ${#pools[@]}]}" ;;
	esac
}

# The generators below write into $g (command substitution would run
# them in subshells, whose $RANDOM is not the seeded sequence).
gen_item() {
	local a v l s
	local -a attrs=(cn sn mail uid description telephoneNumber cn\;lang-en
		dnQualifier)
	case $((RANDOM % 15)) in
	0) pick CLASSES; g="(objectClass=$p)" ;;
	1) g="(entryDN=${dns[RANDOM % ${#dns[@]}]})" ;;
	2) g="(member=${dns[RANDOM % ${#dns[@]}]})" ;;
	3) a=${attrs[RANDOM % ${#attrs[@]}]}; g="($a=*)" ;;
	4 | 5 | 6)
		a=${attrs[RANDOM % ${#attrs[@]}]}
		value "${a%%;*}"
		v=${p//\*/\\2a}; v=${v//(/\\28}; v=${v//)/\\29}
		l=${#v}; s=$((RANDOM % (l + 1)))
		case $((RANDOM % 4)) in
		0) g="($a=${v:0:$s}*)" ;;
		1) g="($a=*${v:$s})" ;;
		2) g="($a=*${v:$((s / 2)):$((1 + RANDOM % 5))}*)" ;;
		3) g="($a=${v:0:$((s / 2))}*${v:$s})" ;;
		esac
		;;
	7)
		a=${attrs[RANDOM % ${#attrs[@]}]}
		value "${a%%;*}"
		case $((RANDOM % 4)) in # a word without letters fails the keys
		0) p="$p 12" ;; 1) p="12 $p" ;;
		esac
		g="($a~=$p)"
		;;
	8) g="(nosuchattr=1)" ;;
	9) pick DQ; [ $((RANDOM % 2)) = 0 ] && g="(dnQualifier>=$p)" || g="(dnQualifier<=$p)" ;;
	10)
		pick NUM
		case $((RANDOM % 5)) in
		0 | 1) g="(uidNumber>=$p)" ;; 2) g="(uidNumber<=$p)" ;;
		3) g="(gidNumber<=$p)" ;; 4) g="(uidNumber=$p)" ;;
		esac
		;;
	11)
		pick TS
		case $((RANDOM % 3)) in
		0) g="(createTimestamp>=$p)" ;; 1) g="(createTimestamp<=$p)" ;;
		2) g="(createTimestamp=$p)" ;;
		esac
		;;
	*) a=${attrs[RANDOM % ${#attrs[@]}]}; value "${a%%;*}"; g="($a=$p)" ;;
	esac
}

gen_filter() { # gen_filter DEPTH: a filter into $g
	local i f n
	if [ "$1" -ge 2 ] || [ $((RANDOM % 3)) = 0 ]; then
		gen_item
		return
	fi
	case $((RANDOM % 5)) in
	0) gen_filter $(($1 + 1)); g="(!$g)" ;;
	1 | 2 | 3)
		[ $((RANDOM % 2)) = 0 ] && f="(&" || f="(|"
		n=$((1 + RANDOM % 3))
		for i in $(seq 1 $n); do
			gen_filter $(($1 + 1))
			f+=$g
		done
		g="$f)"
		;;
	4) case $((RANDOM % 3)) in 0) g="(&)" ;; 1) g="(|)" ;; 2) g="(objectClass=*)" ;; esac ;;
	esac
}

gen_searches() {
	local i b
	for i in $(seq 1 10); do
		b=${dns[RANDOM % ${#dns[@]}]}
		gen_filter 0
		case $((RANDOM % 4)) in
		0) printf '%s|sub|%s\n' "$TOP" "$g" ;;
		1) printf '%s|one|%s\n' "$TOP" "$g" ;;
		2) printf '%s|sub|%s\n' "$b" "$g" ;;
		3) printf '%s|children|%s\n' "$b" "$g" ;;
		esac
	done
}

run_case() { # run_case DIR: 0 ran, 3 both refused the case, 4 acre did not
	local dir=$1 work l b s f sl al same nd=0
	work=$(mktemp -d "${TMPDIR:-/tmp}/acre-unchecked.XXXXXX") || return 2
	SLAPD_ROOTDN="cn=admin,$TOP" SLAPD_ROOTPW=$(slapd_random_hex)
	slapd_use_dir "$work"
	{
		printf 'database mdb\nsuffix "o=users"\naccess to * by * read\n'
		printf 'database mdb\nsuffix "%s"\nrootdn "%s"\n' "$TOP" "$SLAPD_ROOTDN"
		gen_indexes
		for l in $LIMS; do
			printf 'limits dn.exact="cn=lim%s,o=users" size.unchecked=%s\n' "$l" "$l"
		done
		printf 'access to * by * read\n'
	} >"$dir/acre.conf"
	{
		for s in core cosine inetorgperson nis; do echo "include $SLAPD_SCHEMA_DIR/$s.schema"; done
		printf 'pidfile %s/slapd.pid\nargsfile %s/slapd.args\nmodulepath /usr/lib/ldap\nmoduleload back_mdb\n' "$work" "$work"
		sed -e "s|^suffix \"o=users\"|&\ndirectory $work/db-users|" \
			-e "s|^suffix \"$TOP\"|&\ndirectory $work/db|" \
			-e "s|^rootdn .*|&\nrootpw $SLAPD_ROOTPW|" "$dir/acre.conf"
	} >"$dir/slapd.conf"
	mkdir -p "$work/db" "$work/db-users"
	{
		printf 'dn: o=users\nobjectClass: organization\no: users\n\n'
		for l in $LIMS free; do
			printf 'dn: cn=lim%s,o=users\nobjectClass: person\ncn: lim%s\nsn: l\nuserPassword: pw\n\n' "$l" "$l"
		done
	} >"$work/users.ldif"
	gen_data >"$work/data.ldif"
	cat "$work/users.ldif" "$work/data.ldif" >"$dir/data.ldif"
	gen_searches >"$dir/searches"
	cp "$dir/slapd.conf" "$work/slapd.conf"
	if ! /usr/sbin/slaptest -u -f "$work/slapd.conf" >"$dir/slaptest.log" 2>&1; then
		rm -rf "$work"
		# acre must refuse what slaptest refuses
		"$acre" compile --policy "$dir/acre.conf" >/dev/null 2>&1 && return 4
		return 3
	fi
	if ! /usr/sbin/slapadd -q -f "$work/slapd.conf" -b o=users -l "$work/users.ldif" >"$dir/slapadd.log" 2>&1 ||
		! /usr/sbin/slapadd -q -f "$work/slapd.conf" -b "$TOP" -l "$work/data.ldif" >>"$dir/slapadd.log" 2>&1 ||
		! slapd_start; then
		slapd_stop
		rm -rf "$work"
		return 3
	fi
	: >"$dir/results"
	while IFS='|' read -r b s f; do
		for l in $LIMS free; do
			ldapsearch -x -H "$SLAPD_URI" -D "cn=lim$l,o=users" -w pw -LLL \
				-o ldif-wrap=no -b "$b" -s "$s" "$f" 1.1 >"$work/slapd.out" 2>&1
			sl=$?
			"$acre" search --policy "$dir/acre.conf" --data "$dir/data.ldif" \
				-D "cn=lim$l,o=users" -b "$b" -s "$s" "$f" 1.1 >"$work/acre.out" 2>&1
			al=$?
			# the entries too: back-mdb searches its candidates alone
			same=1
			if [ "$sl" = 0 ] && [ "$al" = 0 ] &&
				! cmp -s <(grep '^dn:' "$work/slapd.out" | sort) \
					<(grep '^dn:' "$work/acre.out" | sort); then
				same=0
				diff <(grep '^dn:' "$work/slapd.out" | sort) \
					<(grep '^dn:' "$work/acre.out" | sort) >"$dir/entries-$((++nd))"
			fi
			printf '%s\t%s\t%s|%s|%s\tlim%s\t%s\n' "$sl" "$al" "$b" "$s" "$f" "$l" "$same" >>"$dir/results"
		done
	done <"$dir/searches"
	slapd_stop
	rm -rf "$work"
	return 0
}

cases=0 refused=0 searches=0 unsupported=0 differ=0
for k in $(seq 0 $((n - 1))); do
	dir=$out/seed-$seed/case-$k
	mkdir -p "$dir" || exit 2
	RANDOM=$(((seed + k * 7919) % 32768))
	run_case "$dir"
	case $? in
	0) cases=$((cases + 1)) ;;
	3) refused=$((refused + 1)); continue ;;
	4)
		differ=$((differ + 1))
		echo "differential-unchecked: case $k: slaptest refused acre.conf, acre compiles it"
		continue
		;;
	*) exit 2 ;;
	esac
	while IFS='	' read -r sl al what lim same; do
		if [ "$al" = 201 ]; then
			unsupported=$((unsupported + 1))
		elif [ "$sl" = "$al" ] && [ "$same" = 1 ]; then
			searches=$((searches + 1))
		elif [ "$sl" = "$al" ]; then
			differ=$((differ + 1))
			echo "differential-unchecked: case $k: $what as $lim: other entries ($dir/entries-*)"
		else
			differ=$((differ + 1))
			echo "differential-unchecked: case $k: $what as $lim: slapd $sl, acre $al"
		fi
	done <"$dir/results"
done
[ $refused -gt 0 ] && echo "differential-unchecked: seed $seed: $refused cases both refused, skipped"
echo "differential-unchecked: seed $seed: $cases cases, $searches searches, $unsupported unsupported, $differ differ"
[ $searches -gt 0 ] || exit 2
[ $differ = 0 ]
