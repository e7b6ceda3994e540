#!/bin/sh
# record-openldap.sh -- record slapd's answers for one OpenLDAP
# conformance set (tests/oracle/data/README.md).  Needs Debian's slapd,
# slapadd, slapcat, slapacl and ldapsearch; writes nothing outside the
# set's directory but a scratch directory it removes.
#
#   sh record-openldap.sh SETDIR WHICH SOURCE.ldif
#   sh record-openldap.sh --cnconfig SETDIR WHICH
#
# SOURCE.ldif is loaded with slapadd under SETDIR/policy.conf (plus
# modulepath, moduleload back_mdb, pidfile and a `directory` per mdb
# database); slapcat's output becomes SETDIR/data.WHICH.ldif.  Every line
# of SETDIR/cases.WHICH.tsv then runs through slapacl (its -oNAME=VALUE
# arguments first) or, for a search, ldapsearch -LLL against a slapd of
# our own on 127.0.0.1 and a free port, stopped by PID on exit.  The
# answers go to SETDIR/golden.WHICH.txt in the `### N OP` block form
# tests/golden/conformance.sh reads: slapacl's lines without authcDN:,
# authzDN: and the warnings about the configuration; `# rc=CODE TEXT`
# and the entries of a search.  PASSWORD `@` (proxied authorisation) is
# not supported here.
#
# --cnconfig records slapd's answers from the cn=config form of the same
# configuration instead: SETDIR/data.WHICH.ldif is loaded (it is left as
# it is), the configuration goes through `slaptest -f slapd.conf -F DIR`
# and slapacl and slapd run with `-F DIR`; the answers go to
# SETDIR/golden.WHICH.cnconfig.txt.  Keep that file only where it differs
# from golden.WHICH.txt (slaptest writes some rules back in a form that
# means something else: tests/oracle/data/README.md).
set -u
cnconfig=0
if [ "${1:-}" = --cnconfig ]; then
    cnconfig=1
    shift
fi
dir=${1:?usage: record-openldap.sh [--cnconfig] SETDIR WHICH [SOURCE.ldif]}
which=${2:?usage}
if [ $cnconfig = 1 ]; then
    src=$dir/data.$which.ldif out=$dir/golden.$which.cnconfig.txt
else
    src=${3:?usage} out=$dir/golden.$which.txt
fi
export LDAPNOINIT=1
w=$(mktemp -d "${TMPDIR:-/tmp}/acre-record.XXXXXX") || exit 2
pid=
cleanup() {
    if [ -n "$pid" ]; then
        kill "$pid" 2>/dev/null
        wait "$pid" 2>/dev/null
    fi
    rm -rf "$w"
}
trap cleanup EXIT INT TERM

conf=$w/slapd.conf
{
    printf 'modulepath\t/usr/lib/ldap\nmoduleload\tback_mdb\n'
    printf 'pidfile\t%s/slapd.pid\n' "$w"
    awk -v w="$w" '
        { print }
        /^database[ \t]+mdb/ { n++; print "directory\t" w "/db" n }
    ' "$dir/policy.conf"
} >"$conf"
n=$(grep -c '^database[[:space:]]*mdb' "$dir/policy.conf")
while [ "$n" -gt 0 ]; do
    mkdir "$w/db$n"
    n=$((n - 1))
done
# Each database gets the entries of its suffix (the longest that ends
# the DN, compared without case), in the order of SOURCE.
suffixes=$(sed -n 's/^suffix[[:space:]]*"\{0,1\}\([^"]*\)"\{0,1\}[[:space:]]*$/\1/p' \
    "$dir/policy.conf")
i=0
: >"$w/data.ldif"
echo "$suffixes" | while IFS= read -r suffix; do
    i=$((i + 1))
    awk -v RS= -v ORS='\n\n' -v list="$suffixes" -v me="$suffix" '
        BEGIN { n = split(tolower(list), sfx, "\n") }
        {
            dn = $0; sub(/^dn: */, "", dn); sub(/\n.*/, "", dn)
            dn = tolower(dn); best = ""
            for (k = 1; k <= n; k++) {
                l = length(sfx[k])
                if ((dn == sfx[k] || substr(dn, length(dn) - l) == "," sfx[k] ||
                     sfx[k] == "") && l >= length(best))
                    best = sfx[k]
            }
            if (best == tolower(me)) print
        }' "$src" >"$w/src$i.ldif"
    (cd "$dir" && /usr/sbin/slapadd -f "$conf" -b "$suffix" -l "$w/src$i.ldif") \
        2>"$w/err" || { cat "$w/err" >&2; exit 1; }
    (cd "$dir" && /usr/sbin/slapcat -f "$conf" -b "$suffix" -o ldif-wrap=no) \
        >>"$w/data.ldif" 2>/dev/null || exit 1
done || exit 1
cfg=$conf
if [ $cnconfig = 1 ]; then # slapd's own conversion, read back by slapd
    cfg=$w/slapd.d
    mkdir "$cfg"
    (cd "$dir" && /usr/sbin/slaptest -Q -f "$conf" -F "$cfg") || exit 1
else
    mv "$w/data.ldif" "$dir/data.$which.ldif"
fi
# cfgopt -- slapd's option that names the configuration.
cfgopt() { if [ $cnconfig = 1 ]; then echo -F; else echo -f; fi; }

# listening PORT -- is a TCP port in LISTEN state here (IPv4 or IPv6)?
listening() {
    cat /proc/net/tcp /proc/net/tcp6 2>/dev/null | awk -v p="$(printf ':%04X ' "$1")" \
        'index($2 " ", p) && $4 == "0A" { found = 1 } END { exit !found }'
}

port=
start() {
    for _ in 1 2 3 4 5 6 7 8 9 10; do
        port=$((20000 + $(od -An -N2 -tu2 /dev/urandom | tr -d ' ') % 40000))
        listening "$port" && continue
        (cd "$dir" && exec /usr/sbin/slapd -d 0 "$(cfgopt)" "$cfg" \
            -h "ldap://127.0.0.1:$port/") >"$w/slapd.log" 2>&1 </dev/null &
        pid=$!
        for _ in $(seq 200); do
            kill -0 "$pid" 2>/dev/null || break
            listening "$port" && return
            sleep 0.05
        done
        kill "$pid" 2>/dev/null
        wait "$pid" 2>/dev/null
        pid=
    done
    echo "record-openldap.sh: slapd did not start" >&2
    exit 1
}

text() {
    case $1 in
    1) echo "Operations error" ;; 32) echo "No such object" ;;
    34) echo "Invalid DN syntax" ;; 49) echo "Invalid credentials" ;;
    50) echo "Insufficient access" ;; 53) echo "Server is unwilling to perform" ;;
    87) echo "Bad search filter" ;; *) echo "?" ;;
    esac
}

us=$(printf '\037')
k=0
tr '\t' '\037' <"$dir/cases.$which.tsv" >"$w/cases"
while IFS= read -r line; do
    case $line in '#'* | '') continue ;; esac
    k=$((k + 1))
    saved=$IFS
    IFS=$us
    set -f
    # shellcheck disable=SC2086 # the fields, split on IFS
    set -- $line
    set +f
    IFS=$saved
    op=$1 bind=$2
    if [ "$op" = slapacl ]; then
        entry=$3
        shift 3
        echo "### $k slapacl bind=$bind entry=$entry $*"
        n=$#
        for a in "$@"; do # the -o options first
            case $a in -o*) set -- "$@" "$a" ;; esac
        done
        for a in "$@"; do
            [ "$n" -gt 0 ] || break
            n=$((n - 1))
            shift
            case $a in -o*) ;; *) set -- "$@" "$a" ;; esac
        done
        [ "$bind" = - ] || set -- -D "$bind" "$@"
        (cd "$dir" && /usr/sbin/slapacl "$(cfgopt)" "$cfg" -b "$entry" "$@") \
            >/dev/null 2>"$w/err"
        echo "# rc=$?"
        grep -v -e '^authcDN:' -e '^authzDN:' -e "^$cfg:" "$w/err"
        echo
        continue
    fi
    [ -n "$pid" ] || start
    pw=$3 base=$4 scope=$5 filter=$6
    shift 6
    echo "### $k search bind=$bind base=$base scope=$scope filter=$filter attrs=$*"
    set -- -b "$base" -s "$scope" "$filter" "$@"
    [ "$bind" = - ] || set -- -D "$bind" -w "$pw" "$@"
    ldapsearch -x -H "ldap://127.0.0.1:$port/" -LLL -o ldif-wrap=no "$@" \
        >"$w/out" 2>/dev/null
    rc=$?
    if [ $rc -eq 0 ]; then echo "# rc=0 "; else echo "# rc=$rc $(text $rc) ($rc)"; fi
    cat "$w/out"
    [ ! -s "$w/out" ] || [ -z "$(tail -c 2 "$w/out" | tr -d '\n')" ] ||
        echo
done <"$w/cases" >"$out"
