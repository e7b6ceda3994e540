#!/bin/bash
# bench_slapd.sh -- `make bench-slapd`: the CPU slapd spends per returned
# entry of a 10,000-entry subtree search under policies of 1, 100 and
# 1,000 rules, next to acre's on the same policy, data and search, in the
# same run (see acl_bench.h for what is measured).
#
#   tests/differential/bench_slapd.sh DRIVER OUTDIR [RULES...]
#
# Each policy runs in its own private slapd (acl_run.sh: own slapd.conf,
# slapadd, free loopback port, stopped by PID).  Figures stay in
# OUTDIR/rules-N/bench-{slapd,acre}.txt; the table is printed and written
# as OUTDIR/bench-slapd.json.  With ACL_ACRE_MODULE=/abs/acre.so each
# policy also runs in slapd with overlay acre deciding (bench-module.txt,
# the overlay columns: make bench-slapd-module); ACRE_BENCH_UNITS=N
# shrinks the data to N units of 100 entries (a quick try: 2).
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/slapd.sh"

driver=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
out=$2
shift 2
[ $# -gt 0 ] || set -- 1 100 1000
slapd_require || { echo "bench-slapd: slapd is not available"; exit 2; }
mkdir -p "$out" || exit 2
out=$(cd "$out" && pwd)
dirs=()
for n in "$@"; do
	dir=$out/rules-$n
	rm -rf "$dir"
	echo "bench-slapd: $n rules ..."
	"$driver" bench-gen "$n" "$dir" || exit 2
	(unset ACL_ACRE_MODULE
	 bash "$here/acl_run.sh" "$driver" "$dir" bench-slapd) ||
		{ echo "bench-slapd: the slapd run failed (see $dir)"; exit 2; }
	if [ -n "${ACL_ACRE_MODULE:-}" ]; then # the same, with overlay acre
		ACL_SLAPD_SIDE=module bash "$here/acl_run.sh" "$driver" "$dir" bench-slapd ||
			{ echo "bench-slapd: the module run failed (see $dir)"; exit 2; }
	fi
	"$driver" bench-acre "$dir" || exit 2
	dirs+=("$dir")
done
echo
"$driver" bench-report "$out/bench-slapd.json" "${dirs[@]}"
