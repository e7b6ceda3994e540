#!/bin/sh
# installdirs.sh -- where `make install PREFIX=/usr` puts things (issue 17).
#
#   tests/installdirs.sh MAKE STAGE CONFIGURE_ARGS
#
# Installs with PREFIX=/usr into the staging directory STAGE (DESTDIR:
# never the real /usr) and checks that every directory configure was not
# given explicitly (--libdir, --includedir, --mandir) followed PREFIX:
# the binary, library, header, pkg-config file and man pages all land
# under STAGE/usr, nothing lands elsewhere, and acre.pc's libdir and
# includedir lie under its prefix.  Prints one line per failure and
# `installdirs: ok` or exits 1.
set -u
make=$1
stage=$2
args=$3
fail=0
bad() {
    echo "installdirs: $*" >&2
    fail=1
}
given() { case " $args " in *" --$1="*) return 0 ;; esac; return 1; }

rm -rf "$stage"
$make --no-print-directory install PREFIX=/usr DESTDIR="$stage" >/dev/null ||
    { bad "make install PREFIX=/usr DESTDIR=$stage failed"; exit 1; }
given libdir || for f in lib/libacre.a lib/libacre.so lib/pkgconfig/acre.pc; do
    [ -e "$stage/usr/$f" ] || bad "missing /usr/$f"
done
given includedir || [ -f "$stage/usr/include/acre.h" ] ||
    bad "missing /usr/include/acre.h"
given mandir || [ -f "$stage/usr/share/man/man1/acre.1" ] ||
    bad "missing /usr/share/man/man1/acre.1"
[ -x "$stage/usr/bin/acre" ] || bad "missing /usr/bin/acre"
if ! given libdir && ! given includedir && ! given mandir; then
    other=$(cd "$stage" && find . ! -type d ! -path './usr/*')
    [ -z "$other" ] || bad "installed outside /usr: $other"
fi
pc=$(find "$stage" -name acre.pc | head -n 1)
if [ -n "$pc" ]; then
    prefix=$(sed -n 's/^prefix=//p' "$pc")
    [ "$prefix" = /usr ] || bad "acre.pc: prefix=$prefix, not /usr"
    for v in libdir includedir; do
        given $v && continue
        d=$(sed -n "s/^$v=//p" "$pc" | sed 's|\${prefix}|'"$prefix"'|')
        case $d in
        "$prefix"/*) ;;
        *) bad "acre.pc: $v=$d is not under prefix=$prefix" ;;
        esac
    done
fi
rm -rf "$stage"
[ $fail = 0 ] && echo "installdirs: ok"
exit $fail
