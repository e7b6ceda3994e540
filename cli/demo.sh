#!/bin/sh
# demo.sh -- what `make demo` shows: acre's DN core at work on the kinds of
# names real directories hold.  The access-control search and explain demo
# joins this script when the `acre search` command lands.
acre=${1:-build/acre}
set -e
echo "== acre DN core: one parse gives the normalised form (for matching),"
echo "== the pretty form (for display) and the ancestry hashes (for the index)"
echo
"$acre" dn 'CN=Jürgen  Müller + UID=jmuller,OU=Ventes Européennes,O=Example\, Inc.,DC=Example,DC=COM'
"$acre" dn '2.5.4.3=#0C0A4A6F686E20536D697468,ou = People ; dc=example,dc=com'
"$acre" dn 'member=CN=Admins\,OU=Groups\,DC=Example\,DC=COM,ou=Roles,dc=example,dc=com'
echo "== and a malformed DN is reported with its column:"
"$acre" dn 'cn=Bad<Name,dc=example,dc=com' || true
echo
echo "(acre search / explain over an LDIF directory come with the policy"
echo " engine and CLI issues; see README.md)"
