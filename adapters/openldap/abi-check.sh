#!/bin/sh
# abi-check.sh -- do the configured headers describe the installed slapd?
#
# Usage: abi-check.sh SRC OUTDIR
#
# slapd modules carry no version stamp, and slapd's structs change with
# the source version and the configure options (TLS, SLAPI, dynacl, ACI,
# IPv6...).  So the headers acre.so is compiled against are checked the
# only way there is: Debian's own syncprov and accesslog overlays are
# compiled from the tree SRC with Debian's compiler flags, and their code
# must be that of the shipped /usr/lib/ldap modules, instruction by
# instruction, once addresses that depend on the link (PC-relative data,
# call and jump targets) are blanked.  Every struct offset the overlays
# use is in that code.  Writes OUTDIR/abi.ok when they agree; exit 1 (with
# the first differences) when not.
set -eu

src=$1
out=$2
mkdir -p "$out"
flags="-g -O2 -fstack-protector-strong -Wformat -Wdate-time
	-D_FORTIFY_SOURCE=2 -Wall -D_FILE_OFFSET_BITS=64 -D_GNU_SOURCE -fPIC -DPIC"

# The code of a shared object's .text, one instruction a line, with the
# link-dependent addresses blanked.
code() {
	objdump -d --no-show-raw-insn -j .text "$1" |
		grep -E '^ +[0-9a-f]+:	' | cut -f2- |
		sed -E -e 's/#.*$//' -e 's/-?0x[0-9a-f]+\(%rip\)/X(%rip)/g' \
			-e 's/^(call|jmp|j[a-z]+) +[0-9a-f]+ <[^>]*>/\1 T/' \
			-e 's/[[:space:]]+$//'
}

rm -f "$out/abi.ok"
for m in syncprov accesslog; do
	shipped=/usr/lib/ldap/$m-2.5.so.0
	[ -f "$shipped" ] || {
		echo "abi-check: $shipped is missing (package slapd)" >&2
		exit 1
	}
	# shellcheck disable=SC2086 # flags is a list
	gcc $flags -I"$src/include" -I"$src/servers/slapd" \
		-c "$src/servers/slapd/overlays/$m.c" -o "$out/$m.o" 2>/dev/null
	gcc -shared -o "$out/$m.so" "$out/$m.o"
	code "$out/$m.so" >"$out/$m.mine"
	code "$shipped" >"$out/$m.shipped"
	if ! cmp -s "$out/$m.mine" "$out/$m.shipped"; then
		echo "abi-check: $m compiled from $src differs from $shipped:" >&2
		diff "$out/$m.shipped" "$out/$m.mine" | head -20 >&2
		echo "abi-check: the headers do not match the installed slapd" >&2
		exit 1
	fi
done
echo "abi-check: syncprov and accesslog from $src match the installed slapd"
touch "$out/abi.ok"
