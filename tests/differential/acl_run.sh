#!/bin/bash
# acl_run.sh -- one case of the differential access-control suite through
# a private slapd: the case's own slapd.conf, its data slapadded, slapd
# started on a free loopback port, the case's searches answered (by the
# driver's "slapd" command, over LDAP), slapd stopped by its PID.
#
#   tests/differential/acl_run.sh DRIVER CASEDIR [COMMAND]
#   tests/differential/acl_run.sh DRIVER CASEDIR --hold NAME PROGRAM [ARG...]
#
# COMMAND (default "slapd") is the driver's command run while slapd is
# up, as "DRIVER COMMAND CASEDIR URI ROOTPW PID" ("bench-slapd" for
# `make bench-slapd`).  With --hold, PROGRAM ARG... runs instead, with
# NAME_URI, NAME_ROOTPW and NAME_PID (this slapd's) in its environment,
# and its exit status is acl_run.sh's (bench_slapd.sh keeps slapds up
# this way while it measures another beside them).
# Writes CASEDIR/slapd.conf (what slapd ran; acre compiles the same text),
# CASEDIR/slapd.out, CASEDIR/slaptest.log and CASEDIR/slapadd.log.  The
# database, pid file and log live in a temporary directory removed at
# exit.  Exit status: 0 answered, 2 harness failure, 3 slaptest refused
# the configuration, 4 slapadd refused the data, 5 slapd would not start
# with it (slaptest does not catch everything: slapd 2.5 fails an
# assertion on some configurations it accepts).  slapd is stopped on
# exit, interrupt or termination, whatever failed (slapd.sh).
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/slapd.sh"

if [ "${3:-}" = --hold ] && [ $# -ge 5 ]; then
	driver=$1 dir=$2 cmd=--hold held=$4
	case $held in [A-Z_]*[!A-Z0-9_]* | [!A-Z_]* | '')
		echo "$0: --hold $held: not a variable name" >&2
		exit 2
		;;
	esac
	shift 4
elif [ $# = 2 ] || [ $# = 3 ]; then
	driver=$1 dir=$2 cmd=${3:-slapd}
else
	echo "usage: $0 DRIVER CASEDIR [COMMAND | --hold NAME PROGRAM [ARG...]]" >&2
	exit 2
fi
slapd_have_tools || { slapd_log "slapd and ldap-utils are not installed"; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/acre-acl.XXXXXX") || exit 2
slapd_use_dir "$work"
trap 'slapd_stop; rm -rf "$work"' EXIT
rm -f "$dir/slapd.out" "$dir/acre.out" "$dir/slaptest.log" "$dir/slapadd.log" \
	"$dir/slaptest-d.log" "$dir/acre-cnconfig.out" "$dir/cnconfig.ldif" \
	"$dir/acre-cnconfig-ldif.out"
rm -rf "$dir/slapd.d" "$dir/slapd.d-refused"
SLAPD_ROOTPW=$(slapd_random_hex)
"$driver" conf "$dir" "$work" "$SLAPD_ROOTPW" >"$work/dbs" || exit 2
first=1
while IFS='	' read -r i suffix rootdn size; do
	mkdir -p "$work/db-$i" || exit 2
	if [ "$first" = 1 ]; then
		SLAPD_SUFFIX=$suffix SLAPD_ROOTDN=$rootdn first=0
	fi
done <"$work/dbs"
/usr/sbin/slaptest -u -f "$work/slapd.conf" >"$dir/slaptest.log" 2>&1 || exit 3
while IFS='	' read -r i suffix rootdn size; do
	[ "$size" = 0 ] && continue
	/usr/sbin/slapadd -f "$work/slapd.conf" -b "$suffix" \
		-l "$work/data-$i.ldif" >>"$dir/slapadd.log" 2>&1 || exit 4
done <"$work/dbs"
# slapd's own conversion of the configuration to cn=config, which the
# driver compiles too (acl_check.c: compare_cnconfig); not for slapo-acre
# cases, whose configuration is the module's.  A tree slapd then cannot
# read back (slapd 2.5 writes some filters it does not parse) is kept as
# slapd.d-refused: acre must refuse it too.
if [ "$cmd" = slapd ] && [ -z "${ACL_ACRE_MODULE:-}" ]; then
	if mkdir -p "$dir/slapd.d" &&
		/usr/sbin/slaptest -f "$work/slapd.conf" -F "$dir/slapd.d" \
			>"$dir/slaptest-d.log" 2>&1; then
		if /usr/sbin/slaptest -u -F "$dir/slapd.d" >>"$dir/slaptest-d.log" 2>&1; then
			/usr/sbin/slapcat -F "$dir/slapd.d" -n 0 -l "$dir/cnconfig.ldif" \
				>>"$dir/slaptest-d.log" 2>&1 || rm -f "$dir/cnconfig.ldif"
		else
			mv "$dir/slapd.d" "$dir/slapd.d-refused"
		fi
	else
		rm -rf "$dir/slapd.d"
	fi
fi
slapd_start || exit 5
if [ "$cmd" = --hold ]; then
	env "${held}_URI=$SLAPD_URI/" "${held}_ROOTPW=$SLAPD_ROOTPW" \
		"${held}_PID=$SLAPD_PID" "$@"
	rc=$?
	slapd_stop
	exit $rc
fi
"$driver" "$cmd" "$dir" "$SLAPD_URI/" "$SLAPD_ROOTPW" "$SLAPD_PID" || exit 2
slapd_stop
