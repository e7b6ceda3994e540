#!/bin/sh
# run.sh -- run the golden tests of the acre command.
#
#   tests/golden/run.sh [--update] ACRE SRC [CASE...]
#
# Each case is a directory tests/golden/CASE/ (SRC/tests/golden/CASE) with
#   cmd       one shell command line, run with `sh -c` in the case
#             directory, `acre` (ACRE) first on PATH, $SRC the source root,
#             standard input /dev/null unless the line redirects it;
#   expected  what it printed on standard output, then `# exit: N`, then
#             each line it printed on standard error as `# stderr: LINE`
#             (an output without a final newline gets the line
#             `# no newline at end of output` after it);
#   and the input files the command reads (shared ones in common/).
# The actual output is diffed against `expected` (unified diff on
# failure).  --update rewrites `expected` instead: review its diff.
# Without CASE, every directory with a cmd file runs, in name order.
# Ends with `golden: P passed, F failed`; exit status 1 when F > 0.
set -u

update=0
if [ "${1:-}" = "--update" ]; then
    update=1
    shift
fi
if [ $# -lt 2 ]; then
    echo "usage: run.sh [--update] ACRE SRC [CASE...]" >&2
    exit 2
fi
acre=$1
src=$2
shift 2

abs() { (cd "$1" && pwd -P); }
case $acre in
/*) ;;
*) acre=$(abs "$(dirname "$acre")")/$(basename "$acre") ;;
esac
src=$(abs "$src") || exit 2
if [ ! -x "$acre" ]; then
    echo "run.sh: $acre is not an executable" >&2
    exit 2
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/acre-golden.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT INT TERM
mkdir "$tmp/bin"
ln -s "$acre" "$tmp/bin/acre"

if [ $# -eq 0 ]; then
    set -- $(cd "$src/tests/golden" && for d in */cmd; do
        [ -f "$d" ] && printf '%s\n' "${d%/cmd}"
    done | LC_ALL=C sort)
fi

# actual CASE OUT: run the case, write what it did in the expected form.
actual() {
    dir=$src/tests/golden/$1
    (cd "$dir" && PATH="$tmp/bin:$PATH" SRC="$src" LC_ALL=C \
        sh -c "$(cat cmd)" </dev/null >"$tmp/out" 2>"$tmp/err")
    rc=$?
    {
        cat "$tmp/out"
        if [ -n "$(tail -c 1 "$tmp/out")" ]; then
            printf '\n# no newline at end of output\n'
        fi
        echo "# exit: $rc"
        sed 's/^/# stderr: /' "$tmp/err"
    } >"$2"
}

pass=0
fail=0
for c in "$@"; do
    c=${c%/}
    if [ ! -f "$src/tests/golden/$c/cmd" ]; then
        echo "FAIL $c: no such case"
        fail=$((fail + 1))
        continue
    fi
    actual "$c" "$tmp/actual"
    exp=$src/tests/golden/$c/expected
    if [ $update = 1 ]; then
        if ! cmp -s "$tmp/actual" "$exp" 2>/dev/null; then
            cp "$tmp/actual" "$exp"
            echo "updated $c"
        fi
        pass=$((pass + 1))
    elif diff -u --label "$c/expected" --label actual "$exp" "$tmp/actual" \
        >"$tmp/diff" 2>&1; then
        pass=$((pass + 1))
    else
        echo "FAIL $c"
        cat "$tmp/diff"
        fail=$((fail + 1))
    fi
done
echo "golden: $pass passed, $fail failed"
[ $fail -eq 0 ]
