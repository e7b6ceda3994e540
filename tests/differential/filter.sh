#!/bin/bash
# filter.sh -- the differential filter suite: the same generated LDIF and
# searches through slapd and through acre, compared.
#
#   tests/differential/filter.sh DRIVER OUTDIR [SEED] [N]
#
# DRIVER is the built filter_driver.  SEED defaults to a random one,
# printed first; N (filters) defaults to 300.  Each run gets its own
# directory, OUTDIR/seed-SEED (OUTDIR/cases for DT_CASES), which receives
# data.ldif, searches, slapd.out, one mismatch-K.ldif per mismatch, and
# leaves / leaves.out (the items of the mismatching filters and slapd's
# answers to them); all are kept after the run.  The last line is
# "differential-filter: P passed, F failed"; the exit status is 0 only
# when F is 0.  slapd's files live in a temporary directory that is
# removed at exit, and slapd is stopped whatever happens (slapd.sh).
#
# With DT_CASES=PATH set, the LDIF is PATH.ldif and the searches are the
# filters of PATH.filters (one a line, # comments), each run once from
# the suffix with scope sub, instead of generated ones.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/slapd.sh"

driver=$1
out=$2
seed=${3:-}
n=${4:-300}
[ -n "$seed" ] || seed=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
work=

fail() {
	echo "differential-filter: harness failed: $*"
	echo "differential-filter: 0 passed, $n failed"
	exit 1
}

now_ms() {
	date +%s%3N
}

if [ -n "${DT_CASES:-}" ]; then
	echo "differential-filter: cases of $DT_CASES.filters"
else
	echo "differential-filter: seed $seed, $n filters" \
		"(rerun: make differential-filter SEED=$seed N=$n)"
fi
# One directory per run, so that runs with other seeds (by other people
# sharing the build tree) do not clobber each other.
if [ -n "${DT_CASES:-}" ]; then out=$out/cases; else out=$out/seed-$seed; fi
rm -rf "$out" && mkdir -p "$out" || fail "cannot make $out"
out=$(cd "$out" && pwd)
echo "differential-filter: artefacts in $out"
slapd_require || fail "slapd is not available"
if [ -n "${DT_CASES:-}" ]; then
	# Fixed cases instead of generated ones: $DT_CASES.ldif and the
	# filters of $DT_CASES.filters, each searched from the suffix.
	cp "$DT_CASES.ldif" "$out/data.ldif" || fail "no $DT_CASES.ldif"
	grep -v -e '^#' -e '^$' "$DT_CASES.filters" |
		sed "s/^/sub	$SLAPD_SUFFIX	/" >"$out/searches" ||
		fail "no $DT_CASES.filters"
	n=$(grep -c . "$out/searches")
else
	"$driver" gen "$seed" "$n" "$out" || fail "the generator failed"
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/acre-slapd.XXXXXX") || fail "mktemp"
slapd_setup "$work" || fail "slapd configuration"
trap 'slapd_stop; rm -rf "$work"' EXIT
slapd_load "$out/data.ldif" || fail "slapadd rejected the generated LDIF"
slapd_start || fail "slapd did not start"
t0=$(now_ms)
slapd_run_searches "$out/searches" "$out/slapd.out"
t1=$(now_ms)
echo "differential-filter: slapd answered $(grep -c . "$out/searches")" \
	"searches in $((t1 - t0)) ms on port $SLAPD_PORT"
# First pass, quiet: which filters differ?  Their items go to
# $out/leaves; slapd answers those too, and the second pass reports the
# mismatches with the items that differ by themselves.
if ! "$driver" compare "$out" >/dev/null 2>&1 && [ -s "$out/leaves" ]; then
	slapd_run_searches "$out/leaves" "$out/leaves.out"
fi
slapd_stop
"$driver" compare "$out"
