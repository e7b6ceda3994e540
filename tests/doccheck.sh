#!/bin/sh
# doccheck.sh -- include/acre.h is the reference of the API; doc/acre.3
# must agree with it:
#   - the SYNOPSIS gives every function acre.h declares, with the same
#     prototype (compared with whitespace and roff markup removed), and no
#     other;
#   - every acre_* / ACRE_* name the page writes (functions, types,
#     constants) is one acre.h declares; a name ending in "_" followed by
#     "*" on the page (ACRE_ERR_*) is a family and must prefix one.
#
#   tests/doccheck.sh SRCDIR
set -eu
src=$1
hdr=$src/include/acre.h
man=$src/doc/acre.3
tmp=${TMPDIR:-/tmp}/acre-doccheck.$$
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT

# The header without comments; then without preprocessor lines too, one
# declaration per line, whitespace normalised.
awk '
    { text = text $0 "\n" }
    END {
        while ((i = index(text, "/*")) > 0) {
            printf "%s ", substr(text, 1, i - 1)
            text = substr(text, i + 2)
            text = substr(text, index(text, "*/") + 2)
        }
        printf "%s", text
    }' "$hdr" >"$tmp/hdr.txt"
awk '
    cont || /^[ \t]*#/ { cont = /\\$/; next }
    { printf "%s ", $0 }' "$tmp/hdr.txt" >"$tmp/hdr.decls"

normalise() {
    tr '\n{};' ' \n\n\n' | sed -e 's/[[:space:]][[:space:]]*/ /g' \
        -e 's/^ //' -e 's/ $//' -e 's/( /(/g' -e 's/ )/)/g' \
        -e 's/ ,/,/g' -e 's/\* /*/g'
}

normalise <"$tmp/hdr.decls" | grep -v '^typedef' |
    grep -E '^[a-z_][a-z0-9_ *]*[ *]acre_[a-z0-9_]+\(' | sort >"$tmp/hdr.protos"
grep -oE '\b(acre|ACRE)_[A-Za-z0-9_]+' "$tmp/hdr.txt" | sort -u \
    >"$tmp/hdr.names"

# The page's text with roff escapes undone; its SYNOPSIS prototypes.
sed -e 's/\\f[BIRP]//g' -e 's/\\f([A-Z][A-Z]//g' -e 's/\\-/-/g' \
    -e 's/\\&//g' -e 's/\\e/\\/g' -e 's/\\(em/-/g' "$man" >"$tmp/man.txt"
sed -n '/^\.SH SYNOPSIS/,/^\.SH /p' "$tmp/man.txt" |
    grep -v '^\.B #include' | sed -n 's/^\.BI* //p' | tr -d '"' |
    normalise | grep . | sort >"$tmp/man.protos"

fail=0
if [ "$(wc -l <"$tmp/hdr.protos")" -lt 60 ]; then
    echo "doccheck: found too few prototypes in include/acre.h" >&2
    exit 1
fi
if ! diff -u "$tmp/hdr.protos" "$tmp/man.protos" >"$tmp/protos.diff"; then
    echo "doccheck: the SYNOPSIS of doc/acre.3 differs from include/acre.h" \
        "(- header, + page):" >&2
    grep '^[-+][^-+]' "$tmp/protos.diff" >&2
    fail=1
fi
for name in $(grep -oE '\b(acre|ACRE)_[A-Za-z0-9_]*' "$tmp/man.txt" |
    sort -u); do
    case $name in
    *_)
        grep -q "^$name" "$tmp/hdr.names" && continue ;;
    *)
        grep -qx "$name" "$tmp/hdr.names" && continue ;;
    esac
    echo "doccheck: doc/acre.3 names $name, which include/acre.h does" \
        "not declare" >&2
    fail=1
done
[ "$fail" = 0 ] || exit 1
echo "doccheck: doc/acre.3 gives the $(wc -l <"$tmp/hdr.protos") functions" \
    "of include/acre.h and names nothing else"
