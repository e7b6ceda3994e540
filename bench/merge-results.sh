#!/bin/sh
# merge-results.sh -- put one writer's rows into bench/results.json and
# keep the rows the other writers own.
#
#   bench/merge-results.sh TARGET NEW own PREFIX
#       NEW's writer owns the rows named PREFIX* (make bench-slapd-module:
#       own slapd_)
#   bench/merge-results.sh TARGET NEW own-but PREFIX
#       NEW's writer owns every row but those named PREFIX* (make bench,
#       acre-bench's rows: own-but slapd_)
#
# TARGET and NEW are JSON arrays with one row per line, as acre-bench
# --json writes them ({"name": ..., "unit": ..., "value": ..., ...}).  The
# result is TARGET's rows the writer does not own, then NEW's rows (a
# writer's rows replace all its earlier ones, including rows it no longer
# makes); the rows named PREFIX* come last.  A missing TARGET is an empty
# one.  A NEW row the writer does not own, or a line of either file that
# is not a row, is refused (exit 2) and TARGET is left as it was;
# otherwise the result goes to TARGET.tmp, renamed over TARGET.
set -eu

usage() {
	echo "usage: $0 TARGET NEW own|own-but PREFIX" >&2
	exit 2
}
[ $# = 4 ] || usage
target=$1 new=$2 mode=$3 prefix=$4
case $mode in own | own-but) ;; *) usage ;; esac
[ -r "$new" ] || { echo "merge-results: cannot read $new" >&2; exit 2; }
old=$target
[ -e "$target" ] || old=/dev/null
awk -v mode="$mode" -v prefix="$prefix" -v newf="$new" '
# The name of the row on this line, or "" when the line is no row.
function rowname(line, s) {
	if (!match(line, /^[ \t]*\{"name": "[^"]*"/) || line !~ /\}[ \t]*,?[ \t]*$/)
		return ""
	s = substr(line, RSTART, RLENGTH)
	sub(/^[ \t]*\{"name": "/, "", s)
	return substr(s, 1, length(s) - 1)
}
function owned(name) {
	return (index(name, prefix) == 1) == (mode == "own")
}
function bad(why) {
	printf "merge-results: %s:%d: %s\n", FILENAME, FNR, why > "/dev/stderr"
	failed = 1
	exit 2
}
{
	if ($0 ~ /^[ \t]*[][]?[ \t]*$/)
		next
	name = rowname($0)
	if (name == "")
		bad("not a row: " $0)
	row = $0
	sub(/^[ \t]*/, "  ", row)
	sub(/[ \t]*,?[ \t]*$/, "", row)
	if (FILENAME == newf) {
		if (!owned(name))
			bad("row " name " is not the writer'"'"'s")
	} else if (owned(name))
		next
	if (index(name, prefix) == 1)
		last[nlast++] = row
	else
		first[nfirst++] = row
}
END {
	if (failed)
		exit 2
	print "["
	n = nfirst + nlast
	for (i = 0; i < nfirst; i++)
		print first[i] (i + 1 < n ? "," : "")
	for (i = 0; i < nlast; i++)
		print last[i] (nfirst + i + 1 < n ? "," : "")
	print "]"
}' "$old" "$new" >"$target.tmp" || {
	rm -f "$target.tmp"
	exit 2
}
mv "$target.tmp" "$target"
