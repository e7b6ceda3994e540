#!/bin/bash
# slapacl_case.sh -- one generated access-control case through slapacl(8)
# and `acre explain --format slapacl`, their answers compared.  Run by
# slapacl.sh; reruns a case directory by itself.
#
#   tests/differential/slapacl_case.sh DRIVER ACRE CASEDIR [RSEED]
#
# CASEDIR holds a case of `DRIVER gen` (rules.conf, data.ldif,
# requesters).  As acl_run.sh does, the driver writes the slapd.conf
# (CASEDIR/slapd.conf, the file acre reads too) with its databases in a
# temporary directory, slaptest checks it and slapadd loads each
# database; no slapd runs: slapacl reads the databases itself.  Then up
# to six entries of the data (RSEED, default 1, seeds every draw: one
# entry of each kind the case has -- a requester's own entry, a group,
# one with tagged values, one of the second database, one below a
# collectinfo OU or else one with a password -- then any) are checked by
# every requester of CASEDIR/requesters, twice:
#   slapacl -f slapd.conf WHO CONN -b ENTRY
#   acre explain --policy slapd.conf --data data.ldif WHO CONN -e ENTRY \
#       --format slapacl
# with no ATTR (the entry, its children and every value it stores), and
# the same with 7-10 ATTR[/LEVEL][:VALUE] arguments drawn for it (entry,
# children, the entry's own types and values, some types in upper case,
# values it does not hold, operational types, userPassword).  WHO:
# nothing for anonymous, -D DN for the rootdn and users; proxied
# authorisation is slapacl's `-D ROOTDN -o authzDN=DN` and acre's
# `--authc-dn ROOTDN [-D DN]`.  CONN: none half the time (slapacl's
# defaults), else a drawn peer, socket name, listener URL, domain and
# four ssf values (slapacl's -o options, acre's --peer ... --ssf).
# A value argument is given as slapd normalises it (slapdn -N for DNs,
# lower case and single spaces for the caseIgnore types, ...; values the
# harness cannot normalise are left out): slapacl checks a value of its
# command line as written, and so does acre's slapacl format, where slapd
# checks the normalised values it keeps (tests/golden/
# explain-slapacl-typed-values holds values as typed).
# Compared: success or failure of both commands, and slapacl's standard
# error against acre's standard output, less slapacl's authcDN/authzDN
# lines and its remarks on the configuration ("slapd.conf: line 34:
# rootdn is always granted unlimited privileges."); in a listing, the
# entry and children lines stay first and the value lines are sorted
# (slapacl lists the stored order, acre by type), and the lines of the
# values slapadd made up (entryUUID, entryCSN, creatorsName,
# createTimestamp, modifiersName, modifyTimestamp), which data.ldif does
# not hold, are dropped.  Writes CASEDIR/slapacl/N.cmd (both commands),
# N.{slapacl,acre}.raw, N.acre.err and the normal forms N.{slapacl,acre};
# prints one line per differing check and a last line "slapacl: CASEDIR:
# N checks, L lines, F differ" (L: slapacl's lines compared).  With
# SLAPACL_KEEP=1 the databases are kept (their directory is printed), so
# that the commands of N.cmd can be run again.  Exit status: 0 all
# agree, 1 some differ, 2 harness failure, 3 slaptest refused the
# configuration, 4 slapadd refused the data.
set -u
export LC_ALL=C # byte-wise patterns and case mapping: ASCII only
driver=$1
acre=$2
dir=$3
rseed=${4:-1}
[ -x /usr/sbin/slapacl ] || { echo "slapacl: /usr/sbin/slapacl is missing" >&2; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/acre-slapacl.XXXXXX") || exit 2
if [ "${SLAPACL_KEEP:-0}" = 1 ]; then
	echo "slapacl: $dir: databases kept in $work"
else
	trap 'rm -rf "$work"' EXIT
fi
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 141' PIPE
trap 'exit 143' TERM
rm -rf "$dir/slapacl" "$dir/slapd.conf" "$dir/slaptest.log" "$dir/slapadd.log"
mkdir -p "$dir/slapacl" || exit 2

# ---- the databases, as acl_run.sh makes them ------------------------------
"$driver" conf "$dir" "$work" "$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')" \
	>"$work/dbs" || exit 2
suffixes=()
while IFS='	' read -r i suffix rootdn size; do
	mkdir -p "$work/db-$i" || exit 2
	suffixes+=("$suffix")
done <"$work/dbs"
conf=$dir/slapd.conf
/usr/sbin/slaptest -u -f "$conf" >"$dir/slaptest.log" 2>&1 || exit 3
while IFS='	' read -r i suffix rootdn size; do
	[ "$size" = 0 ] && continue
	/usr/sbin/slapadd -f "$conf" -b "$suffix" -l "$work/data-$i.ldif" \
		>>"$dir/slapadd.log" 2>&1 || exit 4
done <"$work/dbs"

# ---- the data: records, DNs decoded ----------------------------------------
# recs: "R TAB NAME TAB KIND TAB VALUE" per attribute line of record R
# (continuation lines joined; KIND ":" or "::" for base64)
awk '
	function flush() { if (held) print line; held = 0 }
	/^#/ { next }
	/^ / { line = line substr($0, 2); next }
	/^$/ { flush(); print ""; next }
	{ flush(); line = $0; held = 1 }
	END { flush() }
' "$dir/data.ldif" | awk -v OFS='	' '
	BEGIN { r = 0 }
	/^$/ { if (open) r++; open = 0; next }
	{ open = 1
	  i = index($0, ":"); name = substr($0, 1, i - 1); rest = substr($0, i + 1)
	  kind = ":"
	  if (substr(rest, 1, 1) == ":") { kind = "::"; rest = substr(rest, 2) }
	  else if (substr(rest, 1, 1) == "<") next
	  sub(/^ */, "", rest)
	  print r, name, kind, rest }
' >"$work/recs"

# decode VALUE KIND -- the value as bytes on stdout.
decode() {
	if [ "$2" = "::" ]; then
		printf '%s' "$1" | base64 -d 2>/dev/null
	else
		printf '%s' "$1"
	fi
}

dns=()
while IFS='	' read -r r name kind value; do
	case $name in dn | DN | Dn | dN) dns[$r]=$(decode "$value" "$kind") ;; esac
done <"$work/recs"
[ ${#dns[@]} -gt 0 ] || { echo "slapacl: $dir: no entries in data.ldif" >&2; exit 2; }

# key DN -- the DN compared loosely, into K: lower case, no spaces
# around , and =
key() {
	K=${1,,}
	K=${K//, /,}
	K=${K// ,/,}
	K=${K//= /=}
	K=${K// =/=}
}

# bash reseeds RANDOM in a subshell: every draw is made in this shell,
# into a variable, never in $(...)
RANDOM=$rseed
# pick LIST... -- one of the arguments (record numbers) into picked
pick() {
	local a=("$@")
	picked=
	[ $# -gt 0 ] && picked=${a[$((RANDOM % $#))]}
	return 0
}

# ---- the entries checked ---------------------------------------------------
mapfile -t rq <"$dir/requesters"
declare -A by_key=()
for r in "${!dns[@]}"; do
	key "${dns[$r]}"
	by_key[$K]=$r
done
own=() groups=() tagged=() second=() below=() any=("${!dns[@]}")
us=$'\x1f' # tabs as a delimiter that is not white space: empty fields
for line in "${rq[@]}"; do
	IFS=$us read -r kind label authz binddn pw <<<"${line//	/$us}"
	for d in "$authz" "$binddn"; do
		[ -n "$d" ] || continue
		key "$d"
		[ -n "${by_key[$K]:-}" ] && own+=("${by_key[$K]}")
	done
done
mapfile -t groups < <(awk -F'\t' 'tolower($2) == "objectclass" &&
	tolower($4) ~ /^(groupofnames|groupofuniquenames|groupofurls|organizationalrole)$/ { print $1 }' "$work/recs" | sort -un)
mapfile -t tagged < <(awk -F'\t' '$2 ~ /;/ { print $1 }' "$work/recs" | sort -un)
mapfile -t pws < <(awk -F'\t' 'tolower($2) == "userpassword" { print $1 }' "$work/recs" | sort -un)
collect_ous=()
mapfile -t collect_ous < <(sed -n 's/^collectinfo *"\([^"]*\)".*/\1/p' "$conf")
for r in "${!dns[@]}"; do
	key "${dns[$r]}"
	k=$K
	for s in "${suffixes[@]:1}"; do
		key "$s"
		[ "$k" = "$K" ] || [ "${k%,"$K"}" != "$k" ] && second+=("$r")
	done
	for o in "${collect_ous[@]}"; do
		key "$o"
		[ "${k%,"$K"}" != "$k" ] && below+=("$r")
	done
done
[ ${#below[@]} = 0 ] && below=("${pws[@]}")
entries=()
for kind in own groups tagged second below any any any any any any; do
	[ ${#entries[@]} -ge 6 ] && break
	eval "set -- \"\${$kind[@]}\""
	pick "$@"
	r=$picked
	[ -n "$r" ] || continue
	case " ${entries[*]} " in *" $r "*) continue ;; esac
	entries+=("$r")
done

# ---- the explicit arguments --------------------------------------------------
levels=(disclose auth compare search read add delete write manage)
# level -- a level to ask for, into L
level() { L=${levels[$((RANDOM % ${#levels[@]}))]}; }

# values R -- the values of record R that slapacl and acre print alike
# (one line, no control characters, UTF-8, none of U+0080-U+009F,
# U+2028, U+2029; acre shows the others in base64), as "NAME TAB VALUE"
# lines into $work/vals-R
values() {
	local rr name kind value v
	: >"$work/vals-$1"
	while IFS='	' read -r rr name kind value; do
		[ "$rr" = "$1" ] || continue
		[ "${name,,}" = dn ] && continue
		v=$(decode "$value" "$kind")
		case $v in
		*[[:cntrl:]]* | *$'\xc2'[$'\x80'-$'\x9f']* | *$'\xe2\x80'[$'\xa8\xa9']*) continue ;;
		esac
		iconv -f UTF-8 -t UTF-8 <<<"$v" >/dev/null 2>&1 || continue
		printf '%s\t%s\n' "$name" "$v" >>"$work/vals-$1"
	done <"$work/recs"
}

# dn_norm DN... -- slapd's normal form of each DN (slapdn -N) into
# ndn[DN], empty when slapd refuses it
declare -A ndn=()
dn_norm() {
	local pending=() out=() d i
	for d in "$@"; do
		[ -n "$d" ] && [ -z "${ndn[$d]+set}" ] && pending+=("$d")
	done
	[ ${#pending[@]} = 0 ] && return 0
	mapfile -t out < <(/usr/sbin/slapdn -f "$conf" -N -- "${pending[@]}" 2>/dev/null)
	if [ ${#out[@]} = ${#pending[@]} ]; then
		for i in "${!pending[@]}"; do ndn[${pending[$i]}]=${out[$i]}; done
	else # slapdn stops at the first DN it refuses
		for d in "${pending[@]}"; do
			ndn[$d]=$(/usr/sbin/slapdn -f "$conf" -N -- "$d" 2>/dev/null)
		done
	fi
}

# normval NAME VALUE -- VALUE as slapd normalises it for NAME's equality
# rule, into NV; false when the harness does not know that form.
# slapacl checks a value given on its command line as it is written
# (slapd itself checks the normalised values it keeps, as slapacl does
# for the entry's own values), and so does acre explain --format slapacl:
# given the normal form, both check what an operation would.
normval() {
	local t=${1%%;*} w=()
	NV=
	[ -n "$2" ] || return 1
	case ${t,,} in
	member | uniquemember | manager | seealso | owner | roleoccupant | \
		secretary | distinguishedname | entrydn | creatorsname | modifiersname)
		case $2 in *'#'*) return 1 ;; esac # uniqueMember's optional UID
		NV=${ndn[$2]:-}
		;;
	userpassword | objectclass | hassubordinates) # no normaliser
		NV=$2
		;;
	telephonenumber)
		NV=${2//[ -]/}
		;;
	memberurl | labeleduri) # caseExactMatch: spaces only
		case $2 in *[!\ -~]*) return 1 ;; esac
		read -r -a w <<<"$2"
		NV=${w[*]}
		;;
	cn | commonname | sn | surname | title | description | givenname | gn | \
		displayname | l | localityname | ou | organizationalunitname | o | \
		organizationname | st | employeetype | serialnumber | uid | userid | \
		mail | rfc822mailbox | dc | domaincomponent | name)
		case $2 in *[!\ -~]*) return 1 ;; esac # ASCII: lower case, spaces
		read -r -a w <<<"${2,,}"
		NV=${w[*]}
		;;
	esac
	[ -n "$NV" ]
}

# args_for R WHODN -- ATTR[/LEVEL][:VALUE] arguments for record R, into
# args; values in slapd's normal form (normval)
args_for() {
	local r=$1 whodn=$2 names=() vals=() n i j a v
	while IFS='	' read -r a v; do
		names+=("$a") vals+=("$v")
	done <"$work/vals-$r"
	args=()
	level
	case $((RANDOM % 3)) in
	0) args+=(entry) ;;
	*) args+=("entry/$L") ;;
	esac
	level
	case $((RANDOM % 3)) in
	0) args+=(children) ;;
	*) args+=("children/$L") ;;
	esac
	n=${#names[@]}
	for i in 1 2 3 4 5; do
		[ $n -gt 0 ] || break
		j=$((RANDOM % n))
		a=${names[$j]} v=${vals[$j]}
		[ $((RANDOM % 6)) = 0 ] && a=${a^^}
		level
		case $((RANDOM % 5)) in
		0 | 1) v= ;;
		esac
		[ -n "$v" ] && { normval "$a" "$v" || v=; }
		case $v in
		'') [ $((RANDOM % 2)) = 0 ] && args+=("$a") || args+=("$a/$L") ;;
		*) [ $((RANDOM % 3)) = 0 ] && args+=("$a:$NV") || args+=("$a/$L:$NV") ;;
		esac
	done
	# a value the entry does not hold, on a type it has or not
	level
	case $((RANDOM % 4)) in
	0) args+=("description/$L:not here") ;;
	1) normval member "$whodn" && args+=("member/$L:$NV") || args+=("member:cn=nobody") ;;
	2) args+=("cn:nobody") ;;
	*) normval seeAlso "${dns[$r]}" && args+=("seeAlso/$L:$NV") ;;
	esac
	# operational types: computed (entryDN, hasSubordinates,
	# subschemaSubentry) or stored by slapadd
	level
	case $((RANDOM % 8)) in
	0) normval entryDN "${dns[$r]}" && args+=("entryDN:$NV") ;;
	1) args+=("hasSubordinates/$L:TRUE") ;;
	2) args+=("subschemaSubentry/$L") ;;
	3) args+=("structuralObjectClass") ;;
	4) args+=("creatorsName/$L") ;;
	5) args+=("entryUUID") ;;
	6) args+=("modifyTimestamp/$L") ;;
	*) args+=("entryDN/$L") ;;
	esac
	level
	[ $((RANDOM % 2)) = 0 ] && args+=("userPassword/$L")
	return 0
}

# the DNs the arguments may hold, normalised in one slapdn run
dnvals=()
for r in "${entries[@]}"; do
	values "$r"
	dnvals+=("${dns[$r]}")
	while IFS='	' read -r a v; do
		a=${a%%;*}
		case ${a,,} in
		member | uniquemember | manager | seealso | owner | roleoccupant | secretary)
			dnvals+=("$v")
			;;
		esac
	done <"$work/vals-$r"
done
for line in "${rq[@]}"; do
	IFS=$us read -r kind label authz binddn pw <<<"${line//	/$us}"
	dnvals+=("$authz" "$binddn")
done
dn_norm "${dnvals[@]}"

# ---- the checks ------------------------------------------------------------------
# norm LISTING SLAPACL ACRE -- both raw answers in their normal form (see
# the head of this file) into SLAPACL and ACRE without .raw; prints the
# number of slapacl's lines and exits 0 when the two are the same
norm() {
	awk -v listing="$1" -v out1="${2%.raw}" -v out2="${3%.raw}" -v conf="$conf: line " '
		function emit(k, out,   i, j, t) {
			if (listing)
				for (i = 4; i <= N[k]; i++) {
					t = L[k, i]
					for (j = i - 1; j >= 3 && L[k, j] > t; j--)
						L[k, j + 1] = L[k, j]
					L[k, j + 1] = t
				}
			printf "" >out
			for (i = 1; i <= N[k]; i++) {
				print L[k, i] >out
				S[k] = S[k] L[k, i] "\n"
			}
			close(out)
		}
		{ k = FILENAME == ARGV[1] ? 1 : 2 }
		/^(authcDN|authzDN): "/ || index($0, conf) == 1 { next }
		listing && /^(entryUUID|entryCSN|creatorsName|createTimestamp|modifiersName|modifyTimestamp|contextCSN)=/ { next }
		{ L[k, ++N[k]] = $0 }
		END { emit(1, out1); emit(2, out2); print N[1] + 0; exit S[1] != S[2] }
	' "$2" "$3"
}

# connection DRAW -- half the time none (slapacl's defaults: no peer,
# socket, URL or domain, every ssf 0), else one drawn as the generator of
# the in-process agreement test draws them (openldap_gen.c: connection),
# into sl_conn (slapacl's -o options) and acre_conn
peers=(IP=127.0.0.1:40000 IP=127.0.0.1:389 IP=10.1.2.3:389 IP=192.168.1.5:1234
	'IP=[::1]:40000' PATH=/var/run/ldapi '')
domains=(ldap.example.com example.com evil.org '')
sockurls=(ldap:/// ldaps:/// ldapi:/// '')
socknames=(IP=127.0.0.1:389 IP=0.0.0.0:636 '')
ssfs=(0 0 56 71 128 256) tlss=(0 0 128 256) sasls=(0 0 56)
connection() {
	local p d u k ssf tls sasl tr
	sl_conn=() acre_conn=()
	[ $((RANDOM % 2)) = 0 ] && return 0
	p=${peers[$((RANDOM % ${#peers[@]}))]}
	d=${domains[$((RANDOM % ${#domains[@]}))]}
	u=${sockurls[$((RANDOM % ${#sockurls[@]}))]}
	k=${socknames[$((RANDOM % ${#socknames[@]}))]}
	ssf=${ssfs[$((RANDOM % 6))]} tls=${tlss[$((RANDOM % 4))]}
	sasl=${sasls[$((RANDOM % 3))]} tr=${ssfs[$((RANDOM % 6))]}
	[ "$tls" != 0 ] && tr=$tls
	[ -n "$p" ] && sl_conn+=(-o "peername=$p") acre_conn+=(--peer "$p")
	[ -n "$k" ] && sl_conn+=(-o "sockname=$k") acre_conn+=(--sockname "$k")
	[ -n "$u" ] && sl_conn+=(-o "sockurl=$u") acre_conn+=(--sockurl "$u")
	[ -n "$d" ] && sl_conn+=(-o "domain=$d") acre_conn+=(--domain "$d")
	sl_conn+=(-o "ssf=$ssf" -o "transport_ssf=$tr" -o "tls_ssf=$tls" -o "sasl_ssf=$sasl")
	acre_conn+=(--ssf "$ssf" --ssf "transport=$tr" --ssf "tls=$tls" --ssf "sasl=$sasl")
	return 0
}

n=0 lines=0 differ=0
for who in "${!rq[@]}"; do
	IFS=$us read -r kind label authz binddn pw <<<"${rq[$who]//	/$us}"
	sl_who=() acre_who=() whodn=
	case $kind in
	anon) ;;
	root | bind)
		sl_who=(-D "$binddn")
		acre_who=(-D "$binddn")
		whodn=$binddn
		;;
	proxy)
		sl_who=(-D "$binddn" -o "authzDN=$authz")
		acre_who=(--authc-dn "$binddn")
		[ -n "$authz" ] && acre_who+=(-D "$authz")
		whodn=$authz
		;;
	*)
		echo "slapacl: $dir: unknown requester kind '$kind'" >&2
		exit 2
		;;
	esac
	for r in "${entries[@]}"; do
		dn=${dns[$r]}
		connection
		for listing in 1 0; do
			args=() what=listing
			if [ $listing = 0 ]; then
				args_for "$r" "$whodn"
				what="${#args[@]} arguments"
			fi
			n=$((n + 1))
			f=$dir/slapacl/$n
			{
				printf '# %s: %s on %s\n' "$label" "$what" "$dn"
				printf '/usr/sbin/slapacl -f %q' "$conf"
				printf ' %q' "${sl_who[@]}" "${sl_conn[@]}" -b "$dn" -- "${args[@]}"
				printf '\n%q explain --policy %q --data %q' "$acre" "$conf" "$dir/data.ldif"
				printf ' %q' "${acre_who[@]}" "${acre_conn[@]}" -e "$dn" --format slapacl -- "${args[@]}"
				printf '\n'
			} >"$f.cmd"
			# slapacl answers on standard error
			/usr/sbin/slapacl -f "$conf" "${sl_who[@]}" "${sl_conn[@]}" -b "$dn" -- "${args[@]}" \
				>/dev/null 2>"$f.slapacl.raw" &
			"$acre" explain --policy "$conf" --data "$dir/data.ldif" \
				"${acre_who[@]}" "${acre_conn[@]}" -e "$dn" --format slapacl -- "${args[@]}" \
				>"$f.acre.raw" 2>"$f.acre.err"
			arc=$?
			wait $!
			src=$?
			nl=$(norm $listing "$f.slapacl.raw" "$f.acre.raw")
			same=$?
			lines=$((lines + nl))
			if [ $same != 0 ] || [ $((src != 0)) != $((arc != 0)) ]; then
				differ=$((differ + 1))
				printf -v shown ' %q' "${args[@]}"
				[ $listing = 1 ] && shown=
				echo "slapacl: $dir: check $n ($label on '$dn'$shown):" \
					"slapacl $src, acre $arc; diff $f.slapacl $f.acre"
			fi
		done
	done
done
echo "slapacl: $dir: $n checks, $lines lines, $differ differ"
[ $differ = 0 ]
