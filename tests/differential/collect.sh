#!/bin/bash
# collect.sh -- the slapo-collect differential suite: generated
# directories with "overlay collect" settings and access rules, searched
# through a private slapd (with the collect overlay loaded) and through
# acre (acre_policy_attach_subentries, acre_search), compared.
#
#   tests/differential/collect.sh DRIVER OUTDIR [SEED] [N]
#
# DRIVER is the built collect_driver.  SEED defaults to a random one,
# printed first; N (cases, seeds SEED .. SEED+N-1) defaults to 5.  Case S
# keeps its files in OUTDIR/seed-S: data.ldif, db.conf, searches,
# slapd.out (ldapsearch's output), slapd.norm and acre.norm (both
# normalised by the driver) and, when they differ, diff.  The last line is
# "differential-collect: P passed, F failed"; the exit status is 0 only
# when F is 0.  slapd is stopped whatever happens (slapd.sh).
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/slapd.sh"

driver=$1
out=$2
seed=${3:-}
n=${4:-5}
[ -n "$seed" ] || seed=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
pass=0
failed=0

fail() {
	echo "differential-collect: harness failed: $*"
	echo "differential-collect: $pass passed, $((n - pass)) failed"
	exit 1
}

# run_searches DIR -- DIR/searches through slapd into DIR/slapd.out
run_searches() {
	local dir=$1 scope base filter attrs who k=0
	local -
	set -f
	: >"$dir/slapd.out"
	while IFS='	' read -r scope base filter attrs who; do
		k=$((k + 1))
		echo "# search $k" >>"$dir/slapd.out"
		if [ "$who" = root ]; then
			slapd_search_as "$SLAPD_ROOTDN" "$SLAPD_ROOTPW" "$scope" \
				"$base" "$filter" $attrs >>"$dir/slapd.out" 2>>"$dir/slapd.err"
		else
			slapd_search_as "" "" "$scope" "$base" "$filter" $attrs \
				>>"$dir/slapd.out" 2>>"$dir/slapd.err"
		fi
	done <"$dir/searches"
}

# load_db SUFFIX LDIF -- LDIF into the database of SUFFIX alone
load_db() {
	/usr/sbin/slapadd -q -g -f "$SLAPD_DIR/slapd.conf" -b "$1" -l "$2" \
		>>"$SLAPD_DIR/slapadd.log" 2>&1 ||
		{ slapd_log "slapadd rejected $2:"; cat "$SLAPD_DIR/slapadd.log" >&2; return 1; }
}

echo "differential-collect: seed $seed, $n cases" \
	"(rerun: make differential-collect SEED=$seed N=$n)"
slapd_require || fail "slapd is not available"
[ -e /usr/lib/ldap/collect.la ] || [ -e /usr/lib/ldap/collect.so ] ||
	fail "slapd's collect overlay module is not installed"
mkdir -p "$out" || fail "cannot make $out"
for i in $(seq 0 $((n - 1))); do
	s=$((seed + i))
	dir=$out/seed-$s
	rm -rf "$dir" && mkdir -p "$dir" || fail "cannot make $dir"
	"$driver" gen "$s" "$dir" || fail "the driver could not generate seed $s"
	SLAPD_GLOBAL_EXTRA="moduleload collect"
	SLAPD_DB_EXTRA=$(cat "$dir/db.conf")
	if [ -e "$dir/sub.conf" ]; then
		# a database of its own for one container, before the first
		mkdir -p "$dir/slapd/db2" || fail "cannot make $dir/slapd/db2"
		SLAPD_GLOBAL_EXTRA="$SLAPD_GLOBAL_EXTRA
$(sed "s|^database mdb\$|&\ndirectory $dir/slapd/db2\nmaxsize 1073741824|" \
			"$dir/sub.conf")"
	fi
	slapd_setup "$dir/slapd" || fail "slapd rejected the settings of seed $s"
	if [ -e "$dir/sub.conf" ]; then
		load_db "$SLAPD_SUFFIX" "$dir/data-main.ldif" &&
			load_db "$(cat "$dir/sub.suffix")" "$dir/data-sub.ldif" ||
			fail "slapadd rejected seed $s"
	else
		slapd_load "$dir/data.ldif" || fail "slapadd rejected seed $s"
	fi
	slapd_start || fail "slapd did not start"
	run_searches "$dir"
	slapd_stop
	rm -rf "$dir/slapd/db" "$dir/slapd/db2"
	"$driver" norm "$dir/slapd.out" >"$dir/slapd.norm" || fail "norm"
	"$driver" acre "$dir" >"$dir/acre.norm" || fail "acre failed on seed $s"
	if diff -u "$dir/slapd.norm" "$dir/acre.norm" >"$dir/diff"; then
		pass=$((pass + 1))
		rm -f "$dir/diff"
	else
		failed=$((failed + 1))
		echo "differential-collect: seed $s differs: $dir/diff"
		head -20 "$dir/diff"
	fi
done
echo "differential-collect: $pass passed, $failed failed"
[ "$failed" -eq 0 ]
