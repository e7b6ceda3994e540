#!/bin/bash
# slapd_diff.sh -- compare the OpenLDAP reference evaluator with the real
# slapd 2.5 installed on this machine, rule set by rule set.
#
#   tests/oracle/tools/slapd_diff.sh slapacl RULES [SLAPACL-OPTIONS...]
#   tests/oracle/tools/slapd_diff.sh search RULES
#
# RULES holds rule sets separated by lines "----"; lines starting with
# "GLOBAL:" go before the database section, the others into it (suffix
# dc=example,dc=com, rootdn cn=Manager,dc=example,dc=com).  The directory
# is test006's initial data plus extra.ldif.
#   slapacl: slaptest and acre must agree on accepting each rule set; then
#            for each of 7 requesters and 9 entries, slapacl's output and the
#            oracle's must be the same lines (slapd's operational attributes
#            dropped).  Extra arguments (-o peername=..., ...) go to both.
#   search:  a private slapd on 127.0.0.1:$PORT (default 39389) answers 10
#            searches for 5 requesters (anonymous, or the rootdn with the
#            proxied-authorisation control); ldapsearch's LDIF and result
#            code must equal the oracle's, both normalised.
# Needs slapd, slaptest, slapacl, slapadd, ldapsearch, python3, and a
# built build/libacre.a ($BUILD selects another build directory).  Leaves
# nothing behind; the slapd it starts is stopped by PID.  Prints each
# mismatch and a last line "... mismatches=N".
set -u
mode=${1:?mode}; rules=${2:?rules}; shift 2
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
build=${BUILD:-$top/build}
data=$top/tests/oracle/data/openldap-test006
W=$(mktemp -d)
SP=
trap '[ -n "$SP" ] && kill $SP 2>/dev/null; rm -rf "$W"' EXIT INT TERM
ROOT="cn=Manager,dc=example,dc=com"

cc -O1 -Wall -Werror=incompatible-pointer-types -Werror=implicit-function-declaration -Werror=int-conversion -I"$top/include" -I"$top/engine" -I"$top/compiler" \
	-I"$top/tests/oracle" -o "$W/oracle" "$here/oracle_cli.c" \
	"$top"/tests/oracle/openldap_oracle*.c "$build/libacre.a" \
	-ltalloc -lpcre2-8 -lunistring || exit 2
cat "$data/data.initial.ldif" "$here/extra.ldif" > "$W/data.ldif"
schemas() {
	for s in core cosine inetorgperson openldap nis dyngroup; do
		echo "include /etc/ldap/schema/$s.schema"
	done
	echo "modulepath /usr/lib/ldap"
	echo "moduleload back_mdb"
}
mkconf() { # block-file db-dir
	{ schemas; grep '^GLOBAL:' "$1" | sed 's/^GLOBAL://'
	  echo "database mdb"; echo 'suffix "dc=example,dc=com"'
	  echo "rootdn \"$ROOT\""; echo "rootpw secret"; echo "directory $2"
	  grep -v '^GLOBAL:' "$1"; } > "$W/t.conf"
}
awk -v D="$W" 'BEGIN{f=D"/blk0"} /^----$/{k++; f=D"/blk"k; next} {print > f}' \
	"$rules"
mkdir -p "$W/db"; : > "$W/empty"; mkconf "$W/empty" "$W/db"
slapadd -f "$W/t.conf" -l "$W/data.ldif" >/dev/null 2>&1 || { echo "slapadd failed"; exit 2; }

USERS=("-"
	"cn=Barbara Jensen,ou=Information Technology Division,ou=People,dc=example,dc=com"
	"cn=Bjorn Jensen,ou=Information Technology Division,ou=People,dc=example,dc=com"
	"cn=James A Jones 1,ou=Alumni Association,ou=People,dc=example,dc=com"
	"cn=John Doe,ou=Information Technology Division,ou=People,dc=example,dc=com")
n=0; bad=0; total=0

slapacl_block() { # block
	local blk=$1 s o s_ok=0 o_ok=1
	slaptest -u -f "$W/t.conf" >/dev/null 2>&1 && s_ok=1
	o=$("$W/oracle" slapacl "$W/t.conf" "$W/data.ldif" "dc=example,dc=com" 2>&1)
	case $o in "PARSE ERROR"*) o_ok=0;; esac
	if [ $s_ok != $o_ok ]; then
		echo "### set $n: slapd accepts=$s_ok acre accepts=$o_ok"; cat "$blk"
		echo "$o" | head -1; bad=$((bad+1)); return
	fi
	[ $s_ok = 0 ] && return
	local users=("${USERS[@]}" "$ROOT" "cn=nobody,dc=example,dc=com")
	local entries=("dc=example,dc=com"
		"cn=Mark Elliot,ou=Alumni Association,ou=People,dc=example,dc=com"
		"cn=All Staff,ou=Groups,dc=example,dc=com"
		"cn=ITD Staff,ou=Groups,dc=example,dc=com"
		"cn=Bjorn Jensen,ou=Information Technology Division,ou=People,dc=example,dc=com"
		"cn=Barbara Jensen,ou=Information Technology Division,ou=People,dc=example,dc=com"
		"cn=Dyn Group,ou=Groups,dc=example,dc=com"
		"cn=Nested,ou=Groups,dc=example,dc=com"
		"ou=Alumni Association,ou=People,dc=example,dc=com")
	local oper='^(structuralObjectClass|entryUUID|creatorsName|createTimestamp|entryCSN|modifiersName|modifyTimestamp)='
	for u in "${users[@]}"; do for e in "${entries[@]}"; do
		local a=(); [ "$u" != "-" ] && a=(-D "$u")
		total=$((total+1))
		s=$(slapacl -f "$W/t.conf" "${a[@]}" "${OPS[@]}" -b "$e" 2>&1 |
			grep -v "^authcDN:\|^authzDN:\|^$W/t.conf:" | grep -Ev "$oper" |
			{ read l1; read l2; echo "$l1"; echo "$l2"; sort; })
		o=$("$W/oracle" slapacl "$W/t.conf" "$W/data.ldif" "$e" "${a[@]}" "${OPS[@]}" 2>&1 |
			{ read l1; read l2; echo "$l1"; echo "$l2"; sort; })
		if [ "$s" != "$o" ]; then
			echo "### set $n user=$u entry=$e"; cat "$blk"
			diff <(echo "$s") <(echo "$o") | head -10; bad=$((bad+1)); return
		fi
	done; done
}

SEARCHES=("dc=example,dc=com;sub;(objectClass=*)"
	"dc=example,dc=com;sub;(cn=*Jensen);cn"
	"dc=example,dc=com;sub;(|(uid=b*)(title=*));cn;uid;title"
	"dc=example,dc=com;sub;(!(description=x));dn"
	"ou=People,dc=example,dc=com;one;(objectClass=*);*"
	"cn=Mark Elliot,ou=Alumni Association,ou=People,dc=example,dc=com;base;(objectClass=*);cn;sn;mail"
	"cn=nobody,ou=People,dc=example,dc=com;base;(objectClass=*)"
	"ou=Groups,dc=example,dc=com;sub;(member=cn=Bjorn Jensen,ou=Information Technology Division,ou=People,dc=example,dc=com);1.1"
	"dc=example,dc=com;sub;(&(objectClass=person)(!(userPassword=*)));cn"
	"dc=example,dc=com;sub;(cn>=M);cn")

normalise() { # rc < ldapsearch -LLL output
	python3 -c '
import sys, base64
def safe(b):
    if not b: return True
    if b[0] in b" :<" or b[-1] <= 0x20 or b[-1] >= 0x7f: return False
    return all(0x20 <= c < 0x7f for c in b)
ents = []
for block in sys.stdin.read().strip("\n").split("\n\n"):
    if not block.strip(): continue
    lines = block.split("\n")
    rest = []
    for l in lines[1:]:
        k, sep, v = l.partition(":")
        if v.startswith(": "):
            raw = base64.b64decode(v[2:])
            v = " " + raw.decode() if safe(raw) else v
        rest.append(k.lower() + ":" + v)
    rest.sort()
    ents.append(lines[0].lower() + "\n" + "".join(x + "\n" for x in rest))
ents.sort()
print("# rc=%s" % sys.argv[1])
for e in ents: print(e)' "$1"
}

search_block() { # block
	local blk=$1 port=${PORT:-39389}
	rm -rf "$W/sdb"; mkdir "$W/sdb"; mkconf "$blk" "$W/sdb"
	slapadd -f "$W/t.conf" -l "$W/data.ldif" >/dev/null 2>&1 || { echo "slapadd failed (set $n)"; return; }
	slapd -h "ldap://127.0.0.1:$port/" -f "$W/t.conf" -d 0 >"$W/slapd.log" 2>&1 & SP=$!
	for i in $(seq 50); do
		LDAPNOINIT=1 ldapsearch -x -H "ldap://127.0.0.1:$port/" -D "$ROOT" -w secret -b "" -s base >/dev/null 2>&1 && break
		sleep 0.1
	done
	for u in "${USERS[@]}"; do for sp in "${SEARCHES[@]}"; do
		IFS=';' read -r base scope filter attrs <<< "$sp"
		IFS=';' read -r -a aa <<< "$attrs"
		local bind=() who=()
		if [ "$u" != "-" ]; then
			bind=(-D "$ROOT" -w secret -e "!authzid=dn:$u"); who=(-D "$u" -A "$ROOT")
		fi
		out=$(LDAPNOINIT=1 ldapsearch -x -H "ldap://127.0.0.1:$port/" "${bind[@]}" \
			-LLL -o ldif-wrap=no -b "$base" -s "$scope" "$filter" "${aa[@]}" 2>/dev/null)
		rc=$?
		s=$(printf '%s\n' "$out" | normalise $rc)
		o=$("$W/oracle" search "$W/t.conf" "$W/data.ldif" "$base" "$scope" "$filter" "${who[@]}" "${aa[@]}")
		total=$((total+1))
		if [ "$s" != "$o" ]; then
			bad=$((bad+1)); echo "### set $n user=$u search=$sp"; cat "$blk"
			diff <(echo "$s") <(echo "$o") | head -12
		fi
	done; done
	kill $SP; wait $SP 2>/dev/null; SP=
}

OPS=("$@")
for blk in $(ls "$W"/blk[0-9]* | sort -V); do
	n=$((n+1))
	if [ "$mode" = slapacl ]; then mkconf "$blk" "$W/db"; slapacl_block "$blk"
	else search_block "$blk"; fi
done
echo "$mode: sets=$n checks=$total mismatches=$bad"
