#!/bin/bash
# repro.sh -- one search through slapd and through acre, side by side:
# the tool for checking (and minimising) a reproducer printed by the
# differential filter suite.
#
#   tests/differential/repro.sh LDIF SCOPE BASE FILTER
#
# LDIF must hold whole subtrees under dc=example,dc=com (parents first).
# Prints both sides' result codes and normalised DNs; exits 0 when they
# agree, 1 when they differ.  FILTER_DRIVER overrides the driver's path
# (default build/differential/filter_driver).
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/slapd.sh"

[ $# = 4 ] || { echo "usage: $0 LDIF SCOPE BASE FILTER" >&2; exit 2; }
ldif=$1 scope=$2 base=$3 filter=$4
driver=${FILTER_DRIVER:-$here/../../build/differential/filter_driver}
[ -x "$driver" ] || { echo "repro.sh: no $driver (make differential-filter builds it)" >&2; exit 2; }

slapd_require || exit 2
work=$(mktemp -d "${TMPDIR:-/tmp}/acre-repro.XXXXXX") || exit 2
slapd_setup "$work" || exit 2
trap 'slapd_stop; rm -rf "$work"' EXIT
slapd_load "$ldif" || exit 2
slapd_start || exit 2
printf '%s\t%s\t%s\n' "$scope" "$base" "$filter" >"$work/spec"
slapd_run_searches "$work/spec" "$work/out"
slapd_stop
"$driver" normalise "$work/out" >"$work/slapd.txt"
"$driver" eval "$ldif" "$scope" "$base" "$filter" >"$work/acre.txt"
echo "== slapd"
cat "$work/slapd.txt"
echo "== acre"
cat "$work/acre.txt"
if diff <(grep -v '^#' "$work/slapd.txt") <(grep -v '^#' "$work/acre.txt") >/dev/null; then
	echo "== same"
else
	echo "== DIFFERENT"
	exit 1
fi
