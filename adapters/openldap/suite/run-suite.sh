#!/bin/bash
# run-suite.sh -- `make check-openldap-suite`: OpenLDAP 2.5.13's own test
# scripts that exercise access control, run against Debian's installed
# slapd and clients, each configuration's mdb access rules moved into an
# acre policy with `overlay acre` added (acre-conf.awk).  Each test must
# pass with its own expected output.
#
#   adapters/openldap/suite/run-suite.sh ACRE_SO OL_BUILD [TEST...]
#
# OL_BUILD is build/openldap (its src/ the configured source package,
# fetch-src.sh).  The suite runs in OL_BUILD/suite: a copy of src/tests
# whose ../servers/slapd/slapd, ../clients/tools/ldap* and module
# directories are links to the installed programs and modules
# (/usr/sbin/slapd, /usr/bin, /usr/lib/ldap), the one test program the
# scripts need (progs/ldif-filter) compiled from the source, and
# scripts/conf.sh, the scripts' configuration filter, followed by
# acre-conf.awk.  Schemas: /etc/ldap/schema.  Ports: a random base on
# 127.0.0.1 (the scripts' own listeners), servers stopped by the scripts.
# ACRE_SUITE_STOCK=1 runs the scripts unchanged (slapd's own rules).
# Default tests: test006-acls test010-passwd test014-whoami
# test027-emptydn test037-manage test046-dds test055-valregex.  (Not
# test044-dynlist: it adds olcAccess rules through cn=config, which land
# behind the native "to * by * manage" and not in the acre policy.)
# Exit status 0 when all pass, 1 when one fails, 2 when the harness
# failed.
set -u
here=$(cd "$(dirname "$0")" && pwd)
[ $# -ge 2 ] || { echo "usage: $0 ACRE_SO OL_BUILD [TEST...]" >&2; exit 2; }
so=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
ol=$(cd "$2" && pwd)
shift 2
tests=("$@")
[ ${#tests[@]} -gt 0 ] ||
	tests=(test006-acls test010-passwd test014-whoami test027-emptydn
		test037-manage test046-dds test055-valregex)
[ -d "$ol/src/tests" ] || { echo "run-suite: no $ol/src/tests" >&2; exit 2; }

s=$ol/suite
rm -rf "$s"
mkdir -p "$s/servers/slapd/back-mdb" "$s/servers/slapd/overlays" \
	"$s/clients/tools" || exit 2
cp -a "$ol/src/tests" "$s/tests" && cp -a "$ol/src/include" "$s/include" ||
	exit 2
ln -s /usr/sbin/slapd "$s/servers/slapd/slapd"
ln -s /usr/lib/ldap/back_mdb.la "$s/servers/slapd/back-mdb/back_mdb.la"
for f in /usr/lib/ldap/*.la; do ln -s "$f" "$s/servers/slapd/overlays/"; done
for t in ldapsearch ldapmodify ldapdelete ldapmodrdn ldapwhoami \
	ldapcompare ldappasswd ldapexop ldapurl; do
	[ -e "/usr/bin/$t" ] && ln -s "/usr/bin/$t" "$s/clients/tools/$t"
done
cc -I"$s/include" "$s/tests/progs/ldif-filter.c" \
	-o "$s/tests/progs/ldif-filter" || exit 2
# ACRE_SUITE_STOCK=1: the scripts as they are (slapd's own rules), to
# tell a failure of the installed slapd from one of acre's
[ "${ACRE_SUITE_STOCK:-}" = 1 ] ||
	mv "$s/tests/scripts/conf.sh" "$s/tests/scripts/conf-orig.sh" || exit 2
[ "${ACRE_SUITE_STOCK:-}" = 1 ] || cat >"$s/tests/scripts/conf.sh" <<CONF
# The source's conf.sh, then acre-conf.awk (run-suite.sh)
{ . "\$SRCDIR/scripts/conf-orig.sh"; } |
	awk -v so="$so" -v policy="\$TESTDIR/acre-policy.\$\$.\$RANDOM" \\
		-f "$here/acre-conf.awk"
CONF

export USER_SCHEMADIR=/etc/ldap/schema
# The scripts' slapd (PORT1..PORT6 = base+1..base+6) cannot take a port
# that any socket of the machine uses: the base is drawn below the
# kernel's ephemeral range (where clients of the earlier tests leave their
# local ports), and again while one of the six is in use.
ports_used() {
	local p hex
	for p in $(seq $(($1 + 1)) $(($1 + 6))); do
		hex=$(printf ':%04X ' "$p")
		cat /proc/net/tcp /proc/net/tcp6 2>/dev/null | awk -v p="$hex" \
			'index($2 " ", p) { found = 1 } END { exit !found }' && return 0
	done
	return 1
}
low=$(cut -f1 /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || echo 32768)
for try in 1 2 3 4 5 6 7 8 9 10; do
	SLAPD_BASEPORT=$((10000 + $(od -An -N2 -tu2 /dev/urandom | tr -d ' ') % (low - 10010)))
	ports_used "$SLAPD_BASEPORT" || break
done
export SLAPD_BASEPORT
fail=0
cd "$s/tests" || exit 2
for t in "${tests[@]}"; do
	if ./run -b mdb "$t" >"$s/$t.log" 2>&1; then
		echo "check-openldap-suite: $t: ok"
	else
		echo "check-openldap-suite: $t: FAILED (log: $s/$t.log)"
		tail -20 "$s/$t.log"
		fail=1
	fi
done
exit $fail
