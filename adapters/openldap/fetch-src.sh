#!/bin/sh
# fetch-src.sh -- the configured OpenLDAP source tree of the installed slapd.
#
# Usage: fetch-src.sh DIR
#
# Debian ships no slapd headers, and a module carries no ABI stamp: it must
# be compiled against the exact source version of the installed slapd,
# configured with Debian's own options (struct layouts depend on them).
# This script leaves that tree in DIR/src, once: DIR/stamp records the
# version it was made for, and a second run with the same slapd does
# nothing.  As root on Debian it adds what is missing on the way: a deb-src
# entry beside the deb one (/etc/apt/sources.list.d/acre-deb-src.sources),
# and the few -dev packages configure needs.  Only headers are configured
# (ldap_config.h and friends); nothing of OpenLDAP is built.
set -eu

dir=$1
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
ver=$(dpkg-query -W -f='${Version}' slapd 2>/dev/null) || {
	echo "fetch-src: slapd is not installed (apt-get install slapd)" >&2
	exit 1
}
if [ -f "$dir/stamp" ] && [ "$(cat "$dir/stamp")" = "$ver" ] &&
	[ -f "$dir/src/include/ldap_config.h" ]; then
	exit 0
fi

asroot() {
	if [ "$(id -u)" = 0 ]; then "$@"; else
		echo "fetch-src: needs root for: $*" >&2
		exit 1
	fi
}

# A deb-src entry with the same URIs, suites and keyring as the deb ones.
if ! apt-get source --print-uris --download-only "openldap=$ver" \
	>/dev/null 2>&1; then
	src=/etc/apt/sources.list.d/debian.sources
	[ -f "$src" ] || {
		echo "fetch-src: no $src to derive a deb-src entry from" >&2
		exit 1
	}
	sed -e 's/^Types: deb$/Types: deb-src/' "$src" |
		asroot tee /etc/apt/sources.list.d/acre-deb-src.sources >/dev/null
	asroot apt-get update -qq
fi

need=
for p in dpkg-dev libltdl-dev libsasl2-dev libgnutls28-dev libwrap0-dev; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		need="$need $p"
done
if [ -n "$need" ]; then
	asroot env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $need \
		>"$dir/apt.log" 2>&1 || {
		cat "$dir/apt.log" >&2
		exit 1
	}
fi

rm -rf "$dir/dl" "$dir/src" "$dir/stamp"
mkdir -p "$dir/dl"
# (apt's _apt user may not write here: the download then runs as root)
(cd "$dir/dl" && apt-get source -qq --download-only "openldap=$ver" \
	2>&1 | grep -v -e 'unsandboxed as root' >&2) || true
[ -f "$dir"/dl/openldap_*.dsc ] || {
	echo "fetch-src: apt-get source openldap=$ver failed" >&2
	exit 1
}
dpkg-source -x "$dir"/dl/openldap_*.dsc "$dir/src" >/dev/null 2>&1 || {
	echo "fetch-src: dpkg-source -x failed" >&2
	exit 1
}

# Debian's options, less those that need perl, SQL, ODBC or argon2 headers
# (they build backends and modules that do not change slapd's structs).
opts=$(grep -v -e '^#' -e perl -e sql -e odbc -e argon2 \
	"$dir/src/debian/configure.options" | tr '\n' ' ')
(cd "$dir/src" && eval "./configure -q $opts" >"$dir/configure.log" 2>&1) || {
	echo "fetch-src: configure failed, see $dir/configure.log" >&2
	exit 1
}
make -s -C "$dir/src/include" ldap_config.h >/dev/null
echo "$ver" >"$dir/stamp"
echo "fetch-src: OpenLDAP $ver configured in $dir/src"
