#!/bin/sh
# example.sh -- compile and run the example host of acre(3) ("Embedding"),
# as a server author would: the code between the page's
# ".\" example begin" and ".\" example end" marks, roff escapes undone,
# built against the installed library (pkg-config, strict C99) and run;
# its output must be tests/example.expected.
#
#   tests/example.sh MANPAGE BUILDDIR CC [CFLAGS...]
#
# PKG_CONFIG_PATH must name the installed acre.pc (make installcheck's).
set -eu
man=$1
out=$2
shift 2
src=$(dirname "$0")
sed -n '/^\.\\" example begin/,/^\.\\" example end/p' "$man" |
    sed -e '/^\.\\"/d' -e '/^\.EX/d' -e '/^\.EE/d' \
        -e 's/\\e/\\/g' -e 's/\\-/-/g' -e 's/\\&//g' >"$out/example.c"
if [ "$(wc -l <"$out/example.c")" -lt 50 ]; then
    echo "example: no example found in $man" >&2
    exit 1
fi
"$@" "$out/example.c" -o "$out/example" \
    $(pkg-config --cflags --libs acre) \
    -Wl,-rpath,"$(pkg-config --variable=libdir acre)"
"$out/example" >"$out/example.out"
if ! diff -u "$src/example.expected" "$out/example.out"; then
    echo "example: the output of acre(3)'s example differs" >&2
    exit 1
fi
echo "example: acre(3)'s example host compiles and prints what it should"
