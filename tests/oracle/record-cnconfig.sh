#!/bin/sh
# record-cnconfig.sh -- the cn=config form of one OpenLDAP conformance
# set's policy, made by slapd's own tools (tests/oracle/data/README.md).
# Needs Debian's slaptest and slapcat; writes nothing outside the set's
# directory but a scratch directory it removes.
#
#   sh record-cnconfig.sh SETDIR
#
# The set's policy.conf (for a set without one, openldap-test006, the
# slapd.conf tests/golden/conformance.sh builds from rules.global.acl and
# rules.db.acl) gets what record-openldap.sh adds for slapd -- modulepath,
# a moduleload for each of spec.json's "modules", pidfile and a
# `directory` per mdb database -- and goes through
# `slaptest -f slapd.conf -F DIR`, run in SETDIR (an include of a file of
# the set is relative), then `slapcat -n0 -F DIR -o ldif-wrap=no`.  The
# output becomes SETDIR/config.ldif with the scratch directory's name
# replaced by /var/lib/acre-conformance and without the attributes slapd
# adds to every entry (structuralObjectClass, entryUUID, creatorsName,
# createTimestamp, entryCSN, modifiersName, modifyTimestamp), so that
# running it again gives the same file.  Exit 1, with slaptest's words,
# when slaptest refuses the configuration; when slapcat cannot read
# slaptest's conversion back, its first error goes to SETDIR/config.skip
# (tests/golden/conformance.sh --cnconfig prints it and skips the set).
set -u
dir=${1:?usage: record-cnconfig.sh SETDIR}
w=$(mktemp -d "${TMPDIR:-/tmp}/acre-cnconfig.XXXXXX") || exit 2
trap 'rm -rf "$w"' EXIT INT TERM

conf=$w/slapd.conf
modules=back_mdb
if [ -f "$dir/spec.json" ]; then
    m=$(sed -n 's/.*"modules": *\[\([^]]*\)\].*/\1/p' "$dir/spec.json" |
        tr -d '" ' | tr ',' ' ')
    modules=${m:-$modules}
fi
{
    printf 'modulepath\t/usr/lib/ldap\n'
    for m in $modules; do printf 'moduleload\t%s\n' "$m"; done
    printf 'pidfile\t%s/slapd.pid\n' "$w"
    if [ -f "$dir/policy.conf" ]; then
        cat "$dir/policy.conf"
    else # as tests/golden/conformance.sh builds it
        for s in core cosine inetorgperson openldap nis; do
            echo "include /etc/ldap/schema/$s.schema"
        done
        cat "$dir/rules.global.acl"
        printf 'database mdb\nsuffix "dc=example,dc=com"\n'
        printf 'rootdn "%s"\nrootpw secret\n' "cn=Manager,dc=example,dc=com"
        cat "$dir/rules.db.acl"
    fi
} | awk -v w="$w" '
    { print }
    /^database[ \t]+mdb/ { n++; print "directory\t" w "/db" n }
' >"$conf"
n=$(grep -c '^directory' "$conf")
while [ "$n" -gt 0 ]; do
    mkdir "$w/db$n"
    n=$((n - 1))
done
# slaptest opens each mdb database read-only: slapadd of nothing makes
# it (slapd numbers the databases from 1 in file order).
k=0
# shellcheck disable=SC2013 # one database type a word
for t in $(awk '$1 == "database" && $2 != "frontend" && $2 != "config" {
        print $2 }' "$conf"); do
    k=$((k + 1))
    [ "$t" != mdb ] ||
        (cd "$dir" && /usr/sbin/slapadd -f "$conf" -n $k -l /dev/null) \
            >"$w/err" 2>&1 || { cat "$w/err" >&2; exit 1; }
done
mkdir "$w/slapd.d"
(cd "$dir" && /usr/sbin/slaptest -f "$conf" -F "$w/slapd.d") >"$w/err" 2>&1 ||
    { cat "$w/err" >&2; exit 1; }
rm -f "$dir/config.ldif" "$dir/config.skip"
if ! /usr/sbin/slapcat -n0 -F "$w/slapd.d" -o ldif-wrap=no \
    >"$w/config.ldif" 2>"$w/err"; then
    cat "$w/err" >&2
    {
        printf 'slapd 2.5.13 cannot read back its own conversion '
        printf '(slapcat -n0): '
        sed -n '1s|^.*: line [0-9]*: ||p' "$w/err"
    } >"$dir/config.skip"
    exit 1
fi
LC_ALL=C awk -v w="$w" '
    tolower($0) ~ /^(structuralobjectclass|entryuuid|creatorsname):/ { next }
    tolower($0) ~ /^(createtimestamp|entrycsn|modifiersname):/ { next }
    tolower($0) ~ /^modifytimestamp:/ { next }
    {
        while ((i = index($0, w)) > 0)
            $0 = substr($0, 1, i - 1) "/var/lib/acre-conformance" \
                substr($0, i + length(w))
        print
    }
' "$w/config.ldif" >"$dir/config.ldif"
