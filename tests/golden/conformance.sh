#!/bin/sh
# conformance.sh -- one OpenLDAP conformance set through the acre command:
# every search and slapacl case of the set must give what slapd 2.5.13
# gave (tests/oracle/data/SET/, described in tests/oracle/data/README.md).
#
#   sh conformance.sh [--cnconfig] SET initial|final
#
# SET is a directory of tests/oracle/data (openldap-test006,
# openldap-test037-manage, ...).  Runs `acre` from PATH; $SRC is the
# source root (the golden runner sets both).  For openldap-test006,
# $ACRE_TEST006_DIR, when set, replaces the data directory.
#
# With --cnconfig the policy is the set's config.ldif instead: the same
# configuration in cn=config form, as slaptest converted it and slapcat
# -n0 printed it (tests/oracle/record-cnconfig.sh), and the answers are
# slapd's from that form: golden.WHICH.cnconfig.txt where they differ
# from golden.WHICH.txt (slaptest writes some rules back in a form that
# means something else), else golden.WHICH.txt; the label says
# `LABEL WHICH cn=config`.  A set without
# one (slapd could not read its own conversion back) is skipped: the
# reason, from the set's config.skip, is printed and the exit status is 0.
# These files are always read from $SRC (not $ACRE_TEST006_DIR).
# The policy is the set's policy.conf, the whole slapd.conf slapd ran
# (its includes relative to the set's directory).  A set without one
# (openldap-test006) has test006's: the five schemas, rules.global.acl, a
# database mdb with suffix dc=example,dc=com and rootdn
# cn=Manager,dc=example,dc=com, and rules.db.acl.  The data is
# data.WHICH.ldif.  A case line (cases.WHICH.tsv, tab separated) becomes:
#   search BIND PW BASE SCOPE FILTER [ATTR...]
#       acre search [-D BIND] [--authc-dn PROXY] -o ldif-wrap=no
#                   -b BASE -s SCOPE -- FILTER [ATTR...]
#       (BIND - is anonymous; PW @ is the proxied authorisation control
#       sent by PROXY, spec.json's "proxy" DN, else test006's rootdn;
#       spec.json's "peer" and "sockname", when there, are the addresses
#       the searches came from and to: --peer PEER --sockname SOCKNAME)
#   slapacl BIND ENTRY [ATTR/LEVEL[:VALUE]...]
#       acre explain --format slapacl -e ENTRY [-D BIND] [ATTR/LEVEL[=VALUE]...]
#       (an argument -oNAME=VALUE is slapacl's requester option: peername,
#       sockname, sockurl, domain, ssf become --peer, --sockname, --sockurl,
#       --domain, --ssf; transport_ssf, tls_ssf, sasl_ssf --ssf KIND=N;
#       authzDN=DN -D DN --authc-dn BIND)
# Both sides, slapd's golden.WHICH.txt and acre's answers gathered in the
# same `### N OP` block form, go through one normaliser before comparing:
#   search   `# rc=CODE TEXT` (acre's `# result:` line gives the code,
#            `# matched:` is dropped: the golden files do not record it),
#            then the entries sorted by DN, each with its `attr: value`
#            lines sorted, attribute names lowercased, a base64 value
#            written plain when it is printable ASCII (as the golden files
#            hold it);
#   slapacl  `# rc=0` and slapd's first two lines, then the others sorted
#            (acre lists attributes by type, slapd in entry order), blank
#            lines dropped; structuralObjectClass too when the data does
#            not carry it (test006's: slapd's slapadd added it, and the
#            recorded answers leave out every attribute slapadd adds).
# An acre run that gives no result (exit 200 and up) is `# acre exit N`
# and its standard error, which no golden block equals.
# Prints `LABEL WHICH: M of N cases match slapd` (LABEL: SET without
# `openldap-`) and, for each case that does not, the case and a unified
# diff (slapd, then acre); exit 1 when any differs, 2 on a usage error.
set -u

cnconfig=0
if [ "${1:-}" = --cnconfig ]; then
    cnconfig=1
    shift
fi
set_=${1:-}
which=${2:-}
case $which in initial | final) ;; *) set_= ;; esac
case $set_ in */* | '')
    echo "usage: conformance.sh [--cnconfig] SET initial|final" >&2
    exit 2
    ;;
esac
label=${set_#openldap-}
data=${SRC:?SRC is not set}/tests/oracle/data/$set_
if [ "$set_" = openldap-test006 ]; then
    data=${ACRE_TEST006_DIR:-$data}
fi
ldif=$data/data.$which.ldif
golden=$data/golden.$which.txt
for f in "$ldif" "$golden" "$data/cases.$which.tsv"; do
    [ -f "$f" ] || { echo "conformance.sh: no $f" >&2; exit 2; }
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/acre-conformance.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT INT TERM

proxy="cn=Manager,dc=example,dc=com" peer="" sock=""
if [ -f "$data/policy.conf" ]; then
    policy=$data/policy.conf
    if [ -f "$data/spec.json" ]; then
        p=$(sed -n 's/.*"proxy": *\[ *"\([^"]*\)".*/\1/p' "$data/spec.json")
        proxy=${p:-$proxy}
        peer=$(sed -n 's/.*"peer": *"\([^"]*\)".*/\1/p' "$data/spec.json")
        sock=$(sed -n 's/.*"sockname": *"\([^"]*\)".*/\1/p' "$data/spec.json")
    fi
else
    policy=$tmp/slapd.conf
    {
        for s in core cosine inetorgperson openldap nis; do
            echo "include /etc/ldap/schema/$s.schema"
        done
        cat "$data/rules.global.acl"
        printf 'database mdb\nsuffix "dc=example,dc=com"\n'
        printf 'rootdn "%s"\nrootpw secret\n' "$proxy"
        cat "$data/rules.db.acl"
    } >"$policy"
fi
if [ $cnconfig = 1 ]; then # always the source tree's (test006 too)
    label="$label $which cn=config"
    cfg=$SRC/tests/oracle/data/$set_
    if [ ! -f "$cfg/config.ldif" ] && [ -f "$cfg/config.skip" ]; then
        echo "$label: skipped: $(cat "$cfg/config.skip")"
        exit 0
    fi
    policy=$cfg/config.ldif
    [ ! -f "$cfg/golden.$which.cnconfig.txt" ] ||
        golden=$cfg/golden.$which.cnconfig.txt
    [ -f "$policy" ] || { echo "conformance.sh: no $policy" >&2; exit 2; }
    which_label=$label
else
    which_label="$label $which"
fi
nosoc=1
LC_ALL=C grep -qi '^structuralObjectClass:' "$ldif" && nosoc=0

# run_case OP BIND FIELDS... -- one case through acre: its block body.
run_case() {
    op=$1 bind=$2
    if [ "$op" = slapacl ]; then
        entry=$3 authz=
        shift 3
        for a in "$@"; do # slapacl's ATTR/LEVEL:VALUE is ATTR/LEVEL=VALUE
            shift
            case $a in -o*=*) # a requester option of slapacl
                o=${a#-o} v=${a#*=}
                case ${o%%=*} in
                peername) set -- "$@" --peer "$v" ;;
                sockname) set -- "$@" --sockname "$v" ;;
                sockurl) set -- "$@" --sockurl "$v" ;;
                domain) set -- "$@" --domain "$v" ;;
                ssf) set -- "$@" --ssf "$v" ;;
                transport_ssf | tls_ssf | sasl_ssf)
                    o=${o%%=*}
                    set -- "$@" --ssf "${o%_ssf}=$v"
                    ;;
                authzDN) authz=$v ;;
                *) set -- "$@" "$a" ;; # acre refuses it
                esac
                continue
                ;;
            esac
            case $a in */*:*)
                attr=${a%%/*} rest=${a#*/}
                case $attr in '' | *:*) ;; *)
                    [ -z "${rest%%:*}" ] || a=$attr/${rest%%:*}=${rest#*:}
                    ;;
                esac
                ;;
            esac
            set -- "$@" "$a"
        done
        if [ -n "$authz" ]; then # bind authenticated, authz authorised
            set -- -D "$authz" "$@"
            [ "$bind" = - ] || set -- --authc-dn "$bind" "$@"
        elif [ "$bind" != - ]; then
            set -- -D "$bind" "$@"
        fi
        if acre explain --policy "$policy" --data "$ldif" --format slapacl \
            -e "$entry" "$@" >"$tmp/out" 2>"$tmp/err"; then
            echo "# rc=0"
            cat "$tmp/out"
        else
            echo "# acre exit $?"
            cat "$tmp/err"
        fi
        return
    fi
    pw=$3 base=$4 scope=$5 filter=$6
    shift 6
    set -- -b "$base" -s "$scope" -- "$filter" "$@"
    [ -z "$peer" ] || set -- --peer "$peer" "$@"
    [ -z "$sock" ] || set -- --sockname "$sock" "$@"
    if [ "$bind" != - ]; then
        [ "$pw" = @ ] && set -- --authc-dn "$proxy" "$@"
        set -- -D "$bind" "$@"
    fi
    acre search --policy "$policy" --data "$ldif" -o ldif-wrap=no "$@" \
        >"$tmp/out" 2>"$tmp/err"
    rc=$?
    if [ $rc -ge 200 ]; then # 200, 201: not a result
        echo "# acre exit $rc"
        cat "$tmp/err"
    else
        cat "$tmp/out"
    fi
}

# normalise -- a file of `### N OP ...` blocks in the compared form:
# `### N`, then the block's lines in order (see the banner).  An acre
# block that failed (`# acre exit`) is kept as it is.
normalise() {
    LC_ALL=C awk -v nosoc="$nosoc" -v t='	' '
        function flush() {
            if (n != "" && op == "search" && !rc)
                print n t "0" t t "# rc=none"
        }
        # b64(S) -- S decoded when it is printable ASCII, else "".
        function b64(s,   i, c, k, v, bits, out, byte) {
            out = ""; v = 0; bits = 0
            for (i = 1; i <= length(s); i++) {
                c = substr(s, i, 1)
                if (c == "=") break
                k = index(B, c) - 1
                if (k < 0) return ""
                v = v * 64 + k; bits += 6
                if (bits >= 8) {
                    bits -= 8; byte = int(v / 2 ^ bits); v -= byte * 2 ^ bits
                    if (byte < 32 || byte > 126) return ""
                    out = out sprintf("%c", byte)
                }
            }
            if (out ~ /^[ :<]/ || out ~ / $/) return ""
            return out
        }
        BEGIN {
            B = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
            split("1 Operations error;2 Protocol error;4 Size limit exceeded;" \
                "10 Referral;12 Critical extension is unavailable;" \
                "32 No such object;34 Invalid DN syntax;" \
                "48 Inappropriate authentication;49 Invalid credentials;" \
                "50 Insufficient access;53 Server is unwilling to perform;" \
                "80 Other (e.g., implementation specific) error;" \
                "87 Bad search filter;123 Authorization denied", r, ";")
            for (i in r) {
                k = substr(r[i], 1, index(r[i], " ") - 1)
                text[k] = substr(r[i], index(r[i], " ") + 1) " (" k ")"
            }
            text[0] = ""
        }
        /^### / {
            flush()
            n = sprintf("%06d", $2); op = $3; rc = 0; dn = ""; k = 0
            next
        }
        op == "slapacl" || /^# acre exit / { op = "raw" }
        op == "raw" {
            if ($0 == "" || /^authcDN:/) next
            if (nosoc && /^structuralObjectClass=/) next
            if (++k <= 3) print n t "0" t k t $0
            else print n t "1" t t $0
            next
        }
        /^# rc=/ { rc = 1; print n t "0" t t $0; next }
        /^# result: / {
            rc = 1
            print n t "0" t t "# rc=" $3 " " ($3 in text ? text[$3] : "? (" $3 ")")
            next
        }
        /^#/ { next }
        /^$/ { dn = ""; next }
        {
            i = index($0, ":")
            name = tolower(substr($0, 1, i - 1)); v = substr($0, i + 1)
            if (v ~ /^:/) {
                p = v; sub(/^: */, "", p); p = b64(p)
                if (p != "") v = " " p
            }
            if (dn == "") { dn = name ":" v; print n t "1" t dn t; next }
            print n t "1" t dn t name ":" v
        }
        END { flush() }
    ' | LC_ALL=C sort | LC_ALL=C awk -v t='	' '
        {   # N, KIND, KEY, LINE: the LINE may hold tabs
            i = index($0, t); k = substr($0, 1, i - 1); r = substr($0, i + 1)
            i = index(r, t); kind = substr(r, 1, i - 1); r = substr(r, i + 1)
            i = index(r, t); key = substr(r, 1, i - 1); l = substr(r, i + 1)
            if (k != n) { n = k; print "### " n + 0; dn = "" }
            if (kind == "1" && l == "" && key != "") {
                if (dn != "") print ""
                dn = key
            }
            if (kind == "1" && l == "" && key != "") print key
            else print l
        }
    '
}

# block N FILE -- block N of a normalised file, without its header.
block() {
    awk -v n="$1" '/^### / { inb = ($2 == n); next } inb' "$2"
}

us=$(printf '\037')
tr '\t' '\037' <"$data/cases.$which.tsv" >"$tmp/cases"
n=0
while IFS= read -r line; do
    case $line in '#'* | '') continue ;; esac
    n=$((n + 1))
    saved=$IFS
    IFS=$us # not white space: an empty field (base "") stays a field
    set -f
    # shellcheck disable=SC2086 # the fields, split on IFS
    set -- $line
    set +f
    IFS=$saved
    echo "### $n $1"
    run_case "$@"
done <"$tmp/cases" >"$tmp/acre.txt"

normalise <"$golden" >"$tmp/slapd.norm"
normalise <"$tmp/acre.txt" >"$tmp/acre.norm"
bad=0
# shellcheck disable=SC2013 # one case number a line
for k in $(LC_ALL=C awk '
    /^### / { k = $2; seen[k] = 1; next }
    { b[FILENAME, k] = b[FILENAME, k] $0 "\n" }
    END {
        for (k in seen)
            if (b[ARGV[1], k] != b[ARGV[2], k]) print k
    }' "$tmp/slapd.norm" "$tmp/acre.norm" | sort -n); do
    bad=$((bad + 1))
    printf 'case %s differs: %s\n' "$k" \
        "$(grep -v -e '^#' -e '^$' "$data/cases.$which.tsv" | sed -n "${k}p")"
    block "$k" "$tmp/slapd.norm" >"$tmp/s"
    block "$k" "$tmp/acre.norm" >"$tmp/a"
    diff -u --label slapd --label acre "$tmp/s" "$tmp/a"
done

blocks=$(grep -c '^### ' "$golden")
if [ "$blocks" -ne "$n" ]; then
    echo "$which_label: $n cases but $blocks answers in $golden"
    bad=$((bad + 1))
fi
echo "$which_label: $((n - bad)) of $n cases match slapd"
[ $bad -eq 0 ]
