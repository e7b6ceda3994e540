#!/bin/sh
# demo.sh -- what `make demo` shows: acre deciding what each requester may
# see in a company directory (examples/company/), why it denies, and what
# `acre lint` finds in rules written in a hurry.
#
# usage: sh cli/demo.sh [ACRE]     ACRE: the command (default build/acre)
#
# Every command runs in examples/company/ and is printed first, as typed
# there, so that a reader can run it again by hand.
set -e

src=$(cd "$(dirname "$0")/.." && pwd)
acre=${1:-$src/build/acre}
case $acre in
/*) ;;
*) acre=$(pwd)/$acre ;;
esac
if [ ! -x "$acre" ]; then
    echo "demo.sh: $acre is not built (run: make demo)" >&2
    exit 2
fi
cd "$src/examples/company"

people=ou=People,dc=example,dc=com
linda="cn=Linda Thomas,ou=Platform,ou=Engineering,$people"
hr="cn=Fatima Miller,ou=HR,$people"
search="search --policy slapd.conf --data company.ldif"
query="
      -b 'ou=Engineering,$people' '(cn=Linda Thom*)'
      cn title c-l mail telephoneNumber homePhone employeeType userPassword"

# run TEXT: print "$ acre TEXT" (TEXT as a shell would read it), run it.
# A status other than 0 is printed, and does not stop the demo.
run() {
    printf '%s\n' "$1" | awk '
        NR > 1 { print prev " \\" }
        { prev = (NR == 1 ? "$ acre " : "") $0 }
        END { print prev }'
    st=0
    eval "\"\$acre\" $(printf '%s' "$1" | tr '\n' ' ')" || st=$?
    [ $st = 0 ] || echo "(exit status $st)"
    echo
}

heading() {
    echo "== $*"
    echo
}

n=$(grep -c '^dn:' company.ldif)
heading "examples/company/: Example Corp, $n entries (company.ldif) and the
== rules of its server (slapd.conf).  One search, three requesters."

heading "1. Anonymous: the public phone book (names, mail, office phones)"
run "$search$query"

heading "2. Linda Thomas, an engineer: titles, sites (c-l) and her private data"
run "$search
      -D '$linda'$query"

heading "3. Fatima Miller, of cn=hr-admins: HR data too, but no password hashes"
run "$search
      -D '$hr'$query"

heading "4. Everyone, anonymously: slapd stops a search at its size limit
== (sizelimit 500 in slapd.conf; -z asks for less, never for more)"
run "$search -z 3
      -b '$people' '(objectClass=person)' cn"

heading "Why may Linda Thomas not read Linda Thompson's home phone?"
run "explain --policy slapd.conf --data company.ldif --format text
      -D '$linda'
      -e 'cn=Linda Thompson,ou=Security,ou=Engineering,$people'
      homePhone"

heading "What lint finds in mistakes.conf (one mistake of each kind)"
run "lint mistakes.conf --data company.ldif"

echo "More: acre help [COMMAND], man doc/acre.1, README.md."
