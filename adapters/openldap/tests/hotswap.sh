#!/bin/bash
# hotswap.sh -- slapo-acre's policy replaced under load (part of
# `make check-openldap-module`).
#
#   adapters/openldap/tests/hotswap.sh ACRE_SO OUTDIR [SWAPS]
#
# slapd with the overlay on 60 people; two policies, each 300 rules that
# match nothing then the ones that decide: A hides every description, B
# shows them all.  Two client processes search the 60 entries over and
# over while the policy is replaced SWAPS times (default 50) through
# cn=config, alternating A and B.  Every search must succeed and return
# all 60 entries, either none or all of them with their description
# (a result entirely under one policy).  (60: slapd itself fails a search
# with busy (51) when a cn=config change waits for its thread pool to
# pause and the search has sent a multiple of 64 entries -- result.c --
# whatever decides access.)  Then memory: slapd's resident size
# after SWAPS more swaps must stay within 8 MB of its size after the first
# SWAPS (a policy here holds about a megabyte: leaked policies would show).
# Exit status 0 when all holds, 1 when not, 2 when the harness failed.
set -u
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../../.." && pwd)
. "$src/tests/differential/slapd.sh"

[ $# -ge 2 ] || { echo "usage: $0 ACRE_SO OUTDIR [SWAPS]" >&2; exit 2; }
so=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
out=$2
swaps=${3:-50}
slapd_require || exit 2
rm -rf "$out"
mkdir -p "$out/db" || exit 2
out=$(cd "$out" && pwd)
base=dc=example,dc=com
SLAPD_SUFFIX=$base
SLAPD_ROOTDN=cn=admin,$base
SLAPD_ROOTPW=$(slapd_random_hex)

{
	printf 'dn: %s\nobjectClass: dcObject\nobjectClass: organization\n' "$base"
	printf 'dc: example\no: Example\n\n'
	printf 'dn: ou=people,%s\nobjectClass: organizationalUnit\n' "$base"
	printf 'ou: people\n\n'
	for i in $(seq 1 60); do
		printf 'dn: uid=u%d,ou=people,%s\nobjectClass: inetOrgPerson\n' \
			"$i" "$base"
		printf 'uid: u%d\ncn: User %d\nsn: U%d\ndescription: d%d\n\n' \
			"$i" "$i" "$i" "$i"
	done
} >"$out/data.ldif"

# policy FILE DESCRIPTION-ACCESS
policy() {
	{
		for i in $(seq 1 300); do
			printf 'access to dn.subtree="ou=x%d,%s" by * read\n' "$i" "$base"
		done
		printf 'access to attrs=description by * %s\n' "$2"
		printf 'access to * by * read\n'
	} >"$1"
}
policy "$out/a.conf" none
policy "$out/b.conf" read

cat >"$out/slapd.conf" <<CONF
include /etc/ldap/schema/core.schema
include /etc/ldap/schema/cosine.schema
include /etc/ldap/schema/inetorgperson.schema
pidfile $out/slapd.pid
argsfile $out/slapd.args
modulepath /usr/lib/ldap
moduleload back_mdb
moduleload $so

database config
rootdn cn=config
rootpw $SLAPD_ROOTPW

database mdb
suffix "$base"
rootdn "$SLAPD_ROOTDN"
rootpw $SLAPD_ROOTPW
directory $out/db
maxsize 104857600
sizelimit unlimited
access to * by * manage
overlay acre
acre-policy $out/a.conf
CONF
/usr/sbin/slapadd -q -f "$out/slapd.conf" -l "$out/data.ldif" \
	>"$out/slapadd.log" 2>&1 || { cat "$out/slapadd.log"; exit 2; }
slapd_use_dir "$out"
slapd_start || exit 2

# A client: search until told to stop; one line per search: "ok A", "ok
# B", or what went wrong.
client() {
	local n=0 r entries descs
	while [ ! -e "$out/stop" ]; do
		n=$((n + 1))
		r=$(ldapsearch -x -H "$SLAPD_URI" -LLL -o ldif-wrap=no \
			-b "ou=people,$base" -s one '(objectClass=*)' uid description \
			2>&1)
		rc=$?
		entries=$(grep -c '^dn: ' <<<"$r")
		descs=$(grep -c '^description: ' <<<"$r")
		if [ $rc != 0 ]; then
			echo "search $n: exit $rc: $(head -3 <<<"$r")"
		elif [ "$entries" != 60 ]; then
			echo "search $n: $entries entries"
		elif [ "$descs" = 0 ]; then
			echo "ok A"
		elif [ "$descs" = 60 ]; then
			echo "ok B"
		else
			echo "search $n: mixed: $descs of 60 descriptions"
		fi
	done
}

# swap K -- K replacements of the policy, alternating B and A
swap() {
	local i f
	for i in $(seq 1 "$1"); do
		f=$out/b.conf
		[ $((i % 2)) = 0 ] && f=$out/a.conf
		printf 'dn: olcOverlay={0}acre,olcDatabase={1}mdb,cn=config\n%s\n%s\n%s\n' \
			'changetype: modify' 'replace: olcAcrePolicy' \
			"olcAcrePolicy: $f" |
			ldapmodify -x -H "$SLAPD_URI" -D cn=config -w "$SLAPD_ROOTPW" \
				>>"$out/swap.log" 2>&1 || return 1
		sleep 0.05
	done
}

rss() { awk '/^VmRSS:/ { print $2 }' "/proc/$SLAPD_PID/status"; }

status=0
rm -f "$out/stop"
client >"$out/client1.log" &
c1=$!
client >"$out/client2.log" &
c2=$!
swap "$swaps" || { echo "hotswap: a replacement failed (swap.log)"; status=1; }
before=$(rss)
swap "$swaps" || { echo "hotswap: a replacement failed (swap.log)"; status=1; }
touch "$out/stop"
wait "$c1" "$c2"
after=$(rss)
slapd_stop

cat "$out/client1.log" "$out/client2.log" >"$out/clients.log"
bad=$(grep -vc '^ok [AB]$' "$out/clients.log")
na=$(grep -c '^ok A$' "$out/clients.log")
nb=$(grep -c '^ok B$' "$out/clients.log")
if [ "$bad" != 0 ]; then
	echo "hotswap: $bad searches failed or were mixed:"
	grep -v '^ok [AB]$' "$out/clients.log" | head -5
	status=1
fi
if [ "$na" = 0 ] || [ "$nb" = 0 ]; then
	echo "hotswap: the searches never saw both policies ($na A, $nb B)"
	status=1
fi
if [ $((after - before)) -gt 8192 ]; then
	echo "hotswap: slapd grew from $before kB to $after kB over $swaps swaps"
	status=1
fi
echo "hotswap: $((2 * swaps)) swaps, $((na + nb)) searches ($na under A," \
	"$nb under B, $bad bad); resident $before kB -> $after kB"
exit $status
