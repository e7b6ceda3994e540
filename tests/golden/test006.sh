#!/bin/sh
# test006.sh -- OpenLDAP's ACL test (test006) through the acre command:
# every search and slapacl case of the conformance data must give what
# slapd 2.5.13 gave (tests/oracle/data/openldap-test006, its README).
#
#   sh test006.sh initial|final
#
# Runs `acre` from PATH; $SRC is the source root (the golden runner sets
# both); $ACRE_TEST006_DIR, when set, replaces the data directory.
#
# The policy is the slapd.conf slapd ran: the five schemas, the global
# rules (rules.global.acl), a database mdb with suffix dc=example,dc=com
# and rootdn cn=Manager,dc=example,dc=com, and its rules (rules.db.acl,
# which turns add_content_acl on).  A case line becomes:
#   search BIND PW BASE SCOPE FILTER [ATTR...]
#       acre search [-D BIND] [--authc-dn ROOTDN] -o ldif-wrap=no
#                   -b BASE -s SCOPE -- FILTER [ATTR...]
#       (BIND - is anonymous; PW @ is the proxied authorisation control
#       sent by the rootdn: authorisation BIND, authentication ROOTDN)
#   slapacl BIND ENTRY
#       acre explain --format slapacl [-D BIND] -e ENTRY
# Both outputs are normalised as the README says before comparing:
#   search   `# rc=CODE TEXT`, then the entries sorted by DN, each with
#            its `attr: value` lines sorted, attribute names lowercased
#            (acre's `# result:` line becomes the rc line, `# matched:`
#            is dropped: the golden files do not record it);
#   slapacl  `# rc=0`, entry, children, then the value lines sorted
#            (acre lists attributes by type, slapd in entry order),
#            without structuralObjectClass: the recorded slapacl answers
#            leave out every attribute slapadd adds (entryUUID, ...).
# Prints `test006 WHICH: M of N cases match slapd` and, for each case
# that does not, the case and a unified diff (slapd, then acre); exit 1
# when any differs.
set -u

which=${1:-}
case $which in initial | final) ;; *)
    echo "usage: test006.sh initial|final" >&2
    exit 2
    ;;
esac
data=${ACRE_TEST006_DIR:-${SRC:?SRC is not set}/tests/oracle/data/openldap-test006}
rootdn="cn=Manager,dc=example,dc=com"
ldif=$data/data.$which.ldif
golden=$data/golden.$which.txt
tmp=$(mktemp -d "${TMPDIR:-/tmp}/acre-test006.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT INT TERM

{
    for s in core cosine inetorgperson openldap nis; do
        echo "include /etc/ldap/schema/$s.schema"
    done
    cat "$data/rules.global.acl"
    printf 'database mdb\nsuffix "dc=example,dc=com"\n'
    printf 'rootdn "%s"\nrootpw secret\n' "$rootdn"
    cat "$data/rules.db.acl"
} >"$tmp/slapd.conf"

# rc_text CODE -- the text ldapsearch printed after the code.
rc_text() {
    case $1 in
    0) echo "" ;;
    32) echo "No such object (32)" ;;
    34) echo "Invalid DN syntax (34)" ;;
    50) echo "Insufficient access (50)" ;;
    87) echo "Bad search filter (87)" ;;
    *) echo "? ($1)" ;;
    esac
}

# plain_pw -- userPassword lines in the golden form: ldapsearch (and
# acre) always write them in base64; the golden files only where needed.
plain_pw() {
    while IFS= read -r l; do
        case $l in
        'userPassword:: '*)
            v=$(printf '%s' "${l#userPassword:: }" | base64 -d)
            if printf '%s\n' "$v" | LC_ALL=C grep -q '^[!-9;=-~]\([ -~]*[!-~]\)*$'; then
                l="userPassword: $v"
            fi
            ;;
        esac
        printf '%s\n' "$l"
    done
}

# from_acre -- acre search's output in the golden form (rc line first).
from_acre() {
    result=$(sed -n 's/^# result: \([0-9]*\) .*/\1/p' "$1")
    echo "# rc=${result:-none} $(rc_text "${result:-none}")"
    grep -v '^# ' "$1" | plain_pw
}

# norm_search -- rc line, then entries sorted by DN, lines sorted.
norm_search() {
    awk -v t='	' '
        NR == 1 { print "0" t $0; next }
        /^$/ { dn = ""; next }
        dn == "" { dn = $0; print "1" t dn t; next }
        { i = index($0, ":")
          print "1" t dn t tolower(substr($0, 1, i - 1)) substr($0, i) }
    ' | LC_ALL=C sort | awk -F'	' '
        $1 == "0" { print $2; next }
        $3 == "" { if (n++) print ""; print $2; next }
        { print $3 }
    '
}

# norm_slapacl -- rc, entry, children, then the other lines sorted.
norm_slapacl() {
    grep -v -e '^$' -e '^structuralObjectClass=' >"$tmp/s"
    head -n 3 "$tmp/s"
    tail -n +4 "$tmp/s" | LC_ALL=C sort
}

# block N -- slapd's answer to case N.
block() {
    awk -v n="$1" '/^### / { inb = ($2 == n); next } inb' "$golden"
}

# run_case FIELDS... -- run one case; its normalised output on stdout.
run_case() {
    op=$1 bind=$2
    if [ "$op" = slapacl ]; then
        set -- --format slapacl -e "$3"
        [ "$bind" = - ] || set -- "$@" -D "$bind"
        acre explain --policy "$tmp/slapd.conf" --data "$ldif" "$@" \
            >"$tmp/out" 2>"$tmp/err" || { cat "$tmp/err"; return; }
        { echo "# rc=0"; cat "$tmp/out"; } | norm_slapacl
        return
    fi
    pw=$3 base=$4 scope=$5 filter=$6
    shift 6
    if [ "$bind" = - ]; then
        set -- -b "$base" -s "$scope" -- "$filter" "$@"
    elif [ "$pw" = @ ]; then
        set -- -D "$bind" --authc-dn "$rootdn" -b "$base" -s "$scope" \
            -- "$filter" "$@"
    else
        set -- -D "$bind" -b "$base" -s "$scope" -- "$filter" "$@"
    fi
    acre search --policy "$tmp/slapd.conf" --data "$ldif" -o ldif-wrap=no \
        "$@" >"$tmp/out" 2>"$tmp/err"
    [ $? -lt 200 ] || { cat "$tmp/err"; return; } # 200, 201: not a result
    from_acre "$tmp/out" | norm_search
}

n=0
bad=0
tab=$(printf '\t')
while IFS= read -r line; do
    case $line in '#'* | '') continue ;; esac
    n=$((n + 1))
    saved=$IFS
    IFS=$tab
    set -f
    set -- $line
    set +f
    IFS=$saved
    run_case "$@" >"$tmp/acre"
    if [ "$1" = slapacl ]; then
        block "$n" | norm_slapacl >"$tmp/slapd"
    else
        block "$n" | norm_search >"$tmp/slapd"
    fi
    if ! diff -u --label slapd --label acre "$tmp/slapd" "$tmp/acre" \
        >"$tmp/diff"; then
        bad=$((bad + 1))
        echo "case $n differs: $line"
        cat "$tmp/diff"
    fi
done <"$data/cases.$which.tsv"

blocks=$(grep -c '^### ' "$golden")
if [ "$blocks" -ne "$n" ]; then
    echo "test006 $which: $n cases but $blocks answers in $golden"
    bad=$((bad + 1))
fi
echo "test006 $which: $((n - bad)) of $n cases match slapd"
[ $bad -eq 0 ]
