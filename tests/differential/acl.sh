#!/bin/bash
# acl.sh -- the differential access-control suite: acre against a private
# slapd on the same rules, data and searches (see README.md).
#
#   tests/differential/acl.sh DRIVER OUTDIR [SEED] [N]
#
# First OpenLDAP's test006 (its initial and final data, as fixed cases)
# and the fixed cases of acl-cases/ (one directory each, files as a
# generated case's), then generated cases from SEED (default: a fresh
# random seed, printed) until at least N searches (default 300) have been
# compared.  Each case is run by acl_run.sh (one private slapd per case,
# stopped by PID) and compared by DRIVER; artefacts stay in
# OUTDIR/test006-initial, OUTDIR/test006-final, OUTDIR/fixed-NAME and
# OUTDIR/seed-SEED/case-K.  Every mismatch is
# printed with a reproducer, and the first ones are shrunk.  Exit status
# 0 only when every search agrees.
set -u
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
. "$here/slapd.sh"

driver=$1
out=$2
seed=${3:-}
n=${4:-}
[ -n "$seed" ] || seed=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
[ -n "$n" ] || n=300
runner="bash $here/acl_run.sh $(cd "$(dirname "$driver")" && pwd)/$(basename "$driver")"
data=$src/tests/oracle/data/openldap-test006
status=0

slapd_require || { echo "differential: slapd is not available"; exit 2; }
mkdir -p "$out" || exit 2
out=$(cd "$out" && pwd)
t0=$(date +%s)
for stage in initial final; do
	dir=$out/test006-$stage
	rm -rf "$dir"
	"$driver" test006 "$data" "$stage" "$dir" || exit 2
	"$driver" case "$dir" "$runner" "test006 $stage" || status=1
done
for fixed in "$here"/acl-cases/*/; do
	name=$(basename "$fixed")
	dir=$out/fixed-$name
	rm -rf "$dir"
	mkdir -p "$dir" &&
		cp "$fixed"/rules.conf "$fixed"/data.ldif "$fixed"/requesters \
			"$fixed"/searches "$dir"/ || exit 2
	if [ -f "$fixed/ops" ]; then cp "$fixed/ops" "$dir"/ || exit 2; fi
	"$driver" case "$dir" "$runner" "$name" || status=1
done
rm -rf "$out/seed-$seed"
mkdir -p "$out/seed-$seed" || exit 2
"$driver" run "$seed" "$n" "$out/seed-$seed" "$runner"
rc=$?
[ $rc -gt $status ] && status=$rc
echo "differential: $(($(date +%s) - t0)) s; artefacts in $out"
exit $status
