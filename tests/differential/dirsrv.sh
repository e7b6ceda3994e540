# shellcheck shell=bash
# dirsrv.sh -- a private, throw-away 389 Directory Server for acre's ACI
# differential suite.  Source it from bash:  . tests/differential/dirsrv.sh
#
# What it gives a suite:
#   dirsrv_require            install 389-ds-base (--no-install-recommends)
#                             when missing (root, Debian)
#   dirsrv_setup DIR          create an instance whose every file lives under
#                             DIR (no systemd, no sample entries, suffix
#                             $DIRSRV_SUFFIX with a backend "userroot"),
#                             listening on 127.0.0.1 only; not started
#   dirsrv_start              start ns-slapd on a free loopback port, wait
#   dirsrv_load LDIF          replace the whole suffix by LDIF, over LDAP as
#                             cn=Directory Manager (entries in file order)
#   dirsrv_clear              delete every entry of the suffix
#   dirsrv_search_as DN PW SCOPE BASE FILTER [ATTR...]
#                             one ldapsearch -LLL (DN empty: anonymous)
#   dirsrv_run_searches SPEC OUT   a list of searches, recorded (the format
#                             of the ACI suite's `searches` files)
#   dirsrv_stop               stop it (by PID); also run from the EXIT trap
#   dirsrv_discard            stop it and delete its database (110 MB of
#                             preallocated files), keeping the logs
#
# Invariants:
#   - Everything lives under the suite's DIR: configuration, schema copy,
#     database, logs, run and lock files.  Nothing under /etc/dirsrv or
#     /var/lib/dirsrv is read or written (dscreate is pointed at a private
#     defaults.inf through PREFIX).
#   - dscreate runs inside `unshare -n` (its setup briefly listens on every
#     interface); the server we start listens on 127.0.0.1 only, on a port
#     nobody listens on when it starts; the Directory Manager password is
#     random per run.
#   - The ns-slapd we start is stopped by PID, and its database deleted,
#     when the shell exits, is interrupted or terminated (trap on EXIT INT
#     TERM), whatever failed.  A suite that sets its own EXIT trap must
#     call dirsrv_discard in it.
#   - ldapsearch reads no ldap.conf or ldaprc (LDAPNOINIT).
#
# Output format of dirsrv_run_searches (slapd.sh's, with the attributes;
# read by aci_result.c): "# search N", the LDIF ldapsearch -LLL printed
# (unwrapped), then "# rc R" where R is ldapsearch's exit status: the LDAP
# result code (49 when the bind itself failed), or 249 when ldapsearch
# refused the filter.

DIRSRV_SUFFIX=${DIRSRV_SUFFIX:-dc=example,dc=com}
DIRSRV_ROOTDN='cn=Directory Manager'
DIRSRV_ROOTPW=
DIRSRV_DIR=
DIRSRV_PID=
DIRSRV_PORT=
DIRSRV_URI=
DIRSRV_INST=acre
DIRSRV_BIN=${DIRSRV_BIN:-/usr/sbin/ns-slapd}
export LDAPNOINIT=1

dirsrv_log() {
	printf '%s\n' "dirsrv.sh: $*" >&2
}

# ---- installation -----------------------------------------------------------

dirsrv_have_tools() {
	[ -x "$DIRSRV_BIN" ] && command -v dscreate >/dev/null 2>&1 &&
		command -v ldapsearch >/dev/null 2>&1 &&
		command -v ldapmodify >/dev/null 2>&1 &&
		command -v unshare >/dev/null 2>&1 && id dirsrv >/dev/null 2>&1
}

dirsrv_require() {
	dirsrv_have_tools && return 0
	if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
		dirsrv_log "389-ds-base and ldap-utils are missing; install them (Debian: apt-get install --no-install-recommends 389-ds-base ldap-utils)"
		return 1
	fi
	local made_policy=0 rc=0
	if [ ! -e /usr/sbin/policy-rc.d ]; then
		printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d
		chmod 755 /usr/sbin/policy-rc.d
		made_policy=1
	fi
	dirsrv_log "installing 389-ds-base and ldap-utils"
	DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
		389-ds-base ldap-utils >/dev/null 2>&1 ||
		{ apt-get update >/dev/null 2>&1 &&
			DEBIAN_FRONTEND=noninteractive apt-get install -y \
				--no-install-recommends 389-ds-base ldap-utils >/dev/null 2>&1; } ||
		rc=1
	[ "$made_policy" = 1 ] && rm -f /usr/sbin/policy-rc.d
	[ $rc = 0 ] && dirsrv_have_tools || { dirsrv_log "installation failed"; return 1; }
}

# ---- instance creation --------------------------------------------------------

dirsrv_random_hex() {
	od -An -N8 -tx1 /dev/urandom | tr -d ' \n'
}

# A defaults.inf whose every per-instance path is under DIR/inst.
dirsrv_write_defaults() {
	local d=$DIRSRV_DIR/inst
	sed -e 's/^with_systemd = .*/with_systemd = 0/' \
		-e "s|^config_dir = .*|config_dir = $d/etc|" \
		-e "s|^run_dir = .*|run_dir = $d/run|" \
		-e "s|^ldapi = .*|ldapi = $d/run/ldapi.socket|" \
		-e "s|^pid_file = .*|pid_file = $d/run/slapd.pid|" \
		-e "s|^inst_dir = .*|inst_dir = $d/lib|" \
		-e "s|^tmpfiles_d = .*|tmpfiles_d = $d/tmpfiles.d|" \
		-e "s|^initconfig_dir = .*|initconfig_dir = $d/default|" \
		-e "s|^schema_dir = .*|schema_dir = $d/etc/schema|" \
		-e "s|^cert_dir = .*|cert_dir = $d/etc|" \
		-e "s|^lock_dir = .*|lock_dir = $d/lock|" \
		-e "s|^log_dir = .*|log_dir = $d/log|" \
		-e "s|^access_log = .*|access_log = $d/log/access|" \
		-e "s|^audit_log = .*|audit_log = $d/log/audit|" \
		-e "s|^error_log = .*|error_log = $d/log/errors|" \
		-e "s|^security_log = .*|security_log = $d/log/security|" \
		-e "s|^db_dir = .*|db_dir = $d/db|" \
		-e "s|^db_home_dir = .*|db_home_dir = $d/dbhome|" \
		-e "s|^backup_dir = .*|backup_dir = $d/bak|" \
		-e "s|^ldif_dir = .*|ldif_dir = $d/ldif|" \
		/usr/share/dirsrv/inf/defaults.inf
}

dirsrv_write_inf() {
	cat <<EOF
[general]
full_machine_name = localhost
start = False
strict_host_checking = False

[slapd]
instance_name = $DIRSRV_INST
port = $DIRSRV_PORT
root_password = $DIRSRV_ROOTPW
self_sign_cert = False
ldapi = $DIRSRV_DIR/inst/run/ldapi.socket

[backend-userroot]
suffix = $DIRSRV_SUFFIX
sample_entries = no
create_suffix_entry = False
EOF
}

dirsrv_traps() {
	trap 'dirsrv_discard' EXIT
	trap 'dirsrv_discard; exit 130' INT
	trap 'dirsrv_discard; exit 143' TERM
}

# dirsrv_setup DIR -- about 20 s.
dirsrv_setup() {
	local d s
	DIRSRV_DIR=$(cd "$1" 2>/dev/null && pwd) || { mkdir -p "$1" && DIRSRV_DIR=$(cd "$1" && pwd); } || return 1
	DIRSRV_ROOTPW=$(dirsrv_random_hex)
	DIRSRV_PORT=$(dirsrv_free_port) || return 1
	dirsrv_traps
	d=$DIRSRV_DIR/inst
	rm -rf "$d"
	mkdir -p "$DIRSRV_DIR/prefix/share/dirsrv/inf" || return 1
	for s in run lock log default tmpfiles.d; do
		mkdir -p "$d/$s" || return 1
	done
	chown -R dirsrv:dirsrv "$d" || return 1
	chmod 755 "$DIRSRV_DIR"
	dirsrv_write_defaults >"$DIRSRV_DIR/prefix/share/dirsrv/inf/defaults.inf" || return 1
	dirsrv_write_inf >"$DIRSRV_DIR/setup.inf" || return 1
	PREFIX=$DIRSRV_DIR/prefix unshare -n dscreate from-file "$DIRSRV_DIR/setup.inf" \
		>"$DIRSRV_DIR/dscreate.log" 2>&1 ||
		{ dirsrv_log "dscreate failed:"; tail -20 "$DIRSRV_DIR/dscreate.log" >&2; return 1; }
	dirsrv_localhost_only "$d/etc/dse.ldif" || return 1
}

# Make the server listen on 127.0.0.1 only, and disable the ldapi socket.
dirsrv_localhost_only() {
	local f=$1
	grep -q '^nsslapd-listenhost:' "$f" && return 0
	awk '{ print } /^dn: cn=config$/ && !done { print "nsslapd-listenhost: 127.0.0.1"; done = 1 }' \
		"$f" >"$f.new" && sed -i 's/^nsslapd-ldapilisten: on/nsslapd-ldapilisten: off/' "$f.new" &&
		cat "$f.new" >"$f" && rm -f "$f.new"
}

# ---- running ------------------------------------------------------------------

dirsrv_port_busy() {
	local hex
	hex=$(printf ':%04X ' "$1")
	cat /proc/net/tcp /proc/net/tcp6 2>/dev/null | awk -v p="$hex" \
		'index($2 " ", p) && $4 == "0A" { found = 1 } END { exit !found }'
}

dirsrv_free_port() {
	local port
	for _ in $(seq 1 50); do
		port=$((20000 + $(od -An -N2 -tu2 /dev/urandom | tr -d ' ') % 40000))
		dirsrv_port_busy "$port" || { echo "$port"; return 0; }
	done
	return 1
}

dirsrv_probe() {
	ldapwhoami -x -H "$DIRSRV_URI" -D "$DIRSRV_ROOTDN" -w "$DIRSRV_ROOTPW" \
		>/dev/null 2>&1
}

dirsrv_set_port() {
	sed -i "s/^nsslapd-port: .*/nsslapd-port: $1/" "$DIRSRV_DIR/inst/etc/dse.ldif"
}

# dirsrv_start_clear DIR -- install if needed, create the instance in DIR
# and start it with cleartext password storage (the LDIF's userPassword
# values come back as written, as acre's LDIF directory holds them).
# Prints what failed and returns 1.
dirsrv_start_clear() {
	dirsrv_require || { echo "389-ds-base is not available" >&2; return 1; }
	dirsrv_setup "$1" || { echo "could not create the 389 instance" >&2; return 1; }
	dirsrv_start || { echo "could not start 389" >&2; return 1; }
	dirsrv_ldap_root ldapmodify >/dev/null 2>&1 <<EOF || { echo "could not configure 389" >&2; return 1; }
dn: cn=config
changetype: modify
replace: passwordStorageScheme
passwordStorageScheme: CLEAR
EOF
}

# dirsrv_start -- ns-slapd forks into the background and writes its pid file.
dirsrv_start() {
	local i pidf=$DIRSRV_DIR/inst/run/slapd.pid
	for _ in $(seq 1 10); do
		dirsrv_port_busy "$DIRSRV_PORT" && DIRSRV_PORT=$(dirsrv_free_port)
		dirsrv_set_port "$DIRSRV_PORT"
		DIRSRV_URI=ldap://127.0.0.1:$DIRSRV_PORT
		rm -f "$pidf"
		"$DIRSRV_BIN" -D "$DIRSRV_DIR/inst/etc" -i "$pidf" \
			>>"$DIRSRV_DIR/ns-slapd.out" 2>&1 </dev/null
		for i in $(seq 1 600); do
			[ -z "$DIRSRV_PID" ] && [ -s "$pidf" ] && DIRSRV_PID=$(cat "$pidf")
			if [ -n "$DIRSRV_PID" ] && ! kill -0 "$DIRSRV_PID" 2>/dev/null; then
				DIRSRV_PID=
				break
			fi
			[ -n "$DIRSRV_PID" ] && dirsrv_probe && return 0
			sleep 0.05
		done
		[ -n "$DIRSRV_PID" ] && { dirsrv_log "ns-slapd (pid $DIRSRV_PID) does not answer"; dirsrv_stop; return 1; }
	done
	dirsrv_log "could not start ns-slapd; errors log:"
	tail -20 "$DIRSRV_DIR/inst/log/errors" >&2
	return 1
}

dirsrv_stop() {
	[ -n "$DIRSRV_PID" ] || return 0
	kill "$DIRSRV_PID" 2>/dev/null
	for _ in $(seq 1 200); do
		kill -0 "$DIRSRV_PID" 2>/dev/null || break
		sleep 0.05
	done
	kill -0 "$DIRSRV_PID" 2>/dev/null && kill -9 "$DIRSRV_PID" 2>/dev/null
	DIRSRV_PID=
}

dirsrv_discard() {
	dirsrv_stop
	[ -n "$DIRSRV_DIR" ] && rm -rf "$DIRSRV_DIR/inst/db" "$DIRSRV_DIR/inst/dbhome"
}

# ---- data ---------------------------------------------------------------------------

dirsrv_ldap_root() {
	"$@" -x -H "$DIRSRV_URI" -D "$DIRSRV_ROOTDN" -w "$DIRSRV_ROOTPW"
}

# dirsrv_clear -- delete every entry of the suffix, deepest first.  389
# hides LDAPsubentry entries (roles) from a plain (objectClass=*) search,
# which is why ldapdelete -r cannot do it.
dirsrv_clear() {
	dirsrv_ldap_root ldapsearch -LLL -o ldif-wrap=no -b "$DIRSRV_SUFFIX" \
		'(|(objectClass=*)(objectClass=ldapSubEntry))' 1.1 2>/dev/null |
		sed -n 's/^dn: //p' | awk -F, '{ print NF "\t" $0 }' | sort -t'	' -k1,1nr |
		cut -f2- >"$DIRSRV_DIR/clear.dns"
	[ -s "$DIRSRV_DIR/clear.dns" ] || return 0
	dirsrv_ldap_root ldapdelete -f "$DIRSRV_DIR/clear.dns" >"$DIRSRV_DIR/clear.log" 2>&1
}

# dirsrv_load LDIF -- the suffix becomes exactly LDIF (entries added in file
# order, parents first).  Output of ldapadd in DIRSRV_DIR/load.log.  When
# the LDIF defines a Class of Service, the server is restarted after the
# load: 389's cos plugin rebuilds its cache in a thread of its own after
# each add, so a search soon after the load may see an older cache (seen
# on a loaded machine: a CoS attribute missing from one search of 87, not
# on a second run); at start-up the plugin builds it before it serves.
dirsrv_load() {
	dirsrv_clear || { dirsrv_log "could not clear $DIRSRV_SUFFIX"; return 1; }
	dirsrv_ldap_root ldapadd -f "$1" >"$DIRSRV_DIR/load.log" 2>&1 ||
		{ dirsrv_log "ldapadd rejected $1:"; tail -5 "$DIRSRV_DIR/load.log" >&2; return 1; }
	if grep -qiE '^objectClass: *(cosSuperDefinition|cosDefinition) *$' "$1"; then
		dirsrv_stop
		dirsrv_start || { dirsrv_log "could not restart ns-slapd after $1"; return 1; }
	fi
}

# ---- searching -------------------------------------------------------------------

# dirsrv_search_as BINDDN PW SCOPE BASE FILTER [ATTR...] (BINDDN empty: anonymous)
dirsrv_search_as() {
	local dn=$1 pw=$2 scope=$3 base=$4 filter=$5 proxy=()
	shift 5
	# DIRSRV_PROXY: the DN of a proxied authorization control (critical),
	# - for anonymous ("dn:")
	case ${DIRSRV_PROXY:-} in
	'') ;;
	-) proxy=(-e '!authzid=dn:') ;;
	*) proxy=(-e "!authzid=dn:$DIRSRV_PROXY") ;;
	esac
	if [ -n "$dn" ]; then
		ldapsearch -x -H "$DIRSRV_URI" -D "$dn" -w "$pw" -LLL -o ldif-wrap=no \
			"${proxy[@]}" -b "$base" -s "$scope" "$filter" "$@"
	else
		ldapsearch -x -H "$DIRSRV_URI" -LLL -o ldif-wrap=no \
			"${proxy[@]}" -b "$base" -s "$scope" "$filter" "$@"
	fi
}

# dirsrv_run_searches SPEC OUT -- SPEC has one search per line:
#   BINDDN<TAB>PASSWORD<TAB>SCOPE<TAB>BASE<TAB>FILTER<TAB>ATTRS[<TAB>PROXYDN]
# with "-" for an anonymous BINDDN (and its PASSWORD) and for "no ATTRS"
# (all user attributes), ROOTPW for the run's Directory Manager password;
# ATTRS otherwise space-separated; PROXYDN, when there, the DN of a
# proxied authorization control (- for anonymous).  No field is
# empty (bash's read would merge two tabs).  stderr goes to OUT.err.
dirsrv_run_searches() {
	local spec=$1 out=$2 dn pw scope base filter attrs proxy n=0
	local - # ATTRS is split on spaces below, never globbed
	set -f
	: >"$out"
	: >"$out.err"
	while IFS=$'\t' read -r dn pw scope base filter attrs proxy; do
		n=$((n + 1))
		[ "$dn" = - ] && dn='' pw=''
		[ "$pw" = ROOTPW ] && pw=$DIRSRV_ROOTPW
		[ "$attrs" = - ] && attrs=''
		printf '# search %d\n' "$n" >>"$out"
		# shellcheck disable=SC2086 # ATTRS is a list
		DIRSRV_PROXY=$proxy dirsrv_search_as "$dn" "$pw" "$scope" "$base" \
			"$filter" $attrs >>"$out" 2>>"$out.err"
		printf '# rc %d\n' $? >>"$out"
	done <"$spec"
}
