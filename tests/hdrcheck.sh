#!/bin/sh
# hdrcheck.sh -- every header of the tree compiles alone: a translation
# unit that includes nothing but it, as strict C99 and as C++11, warnings
# as errors.  A header that needs another header includes it; one that
# needs a feature macro defines what it needs itself (none does today, so
# no _GNU_SOURCE is given here).
#
#   tests/hdrcheck.sh SRCDIR BUILDDIR CC CXX [EXTRA_CFLAGS...]
#
# EXTRA_CFLAGS are the include paths of the libraries the headers use.
set -eu
src=$1
out=$2/hdrcheck
cc=$3
cxx=$4
shift 4
mkdir -p "$out"
inc=""
for d in include engine compiler cli tests/oracle tests/unit \
    tests/differential bench; do
    inc="$inc -I$src/$d"
done
n=0
fail=0
for h in $(cd "$src" && find include engine compiler cli tests bench \
    -name '*.h' | sort); do
    printf '#include "%s"\n' "$h" >"$out/tu.c"
    cp "$out/tu.c" "$out/tu.cc"
    # shellcheck disable=SC2086
    if ! $cc -std=c99 -pedantic -Werror -Wall -Wextra -fsyntax-only \
        -I"$src" $inc "$@" "$out/tu.c"; then
        echo "hdrcheck: $h does not compile alone as C99" >&2
        fail=1
    fi
    # shellcheck disable=SC2086
    if ! $cxx -std=c++11 -pedantic -Werror -Wall -Wextra -fsyntax-only \
        -I"$src" $inc "$@" "$out/tu.cc"; then
        echo "hdrcheck: $h does not compile alone as C++11" >&2
        fail=1
    fi
    n=$((n + 1))
done
[ "$fail" = 0 ] || exit 1
echo "hdrcheck: $n headers compile alone as C99 and C++11"
