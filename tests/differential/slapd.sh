# slapd.sh -- a private, throw-away OpenLDAP slapd for acre's differential
# test suites.  Source it from bash:  . tests/differential/slapd.sh
#
# What it gives a suite:
#   slapd_require              install slapd + ldap-utils when missing (root,
#                              Debian), leaving no system slapd running
#   slapd_setup DIR [SCHEMA..] write DIR/slapd.conf (our own, never Debian's)
#                              for suffix $SLAPD_SUFFIX and check it
#   slapd_use_dir DIR          use DIR/slapd.conf, written by the suite
#                              (instead of slapd_setup)
#   slapd_load LDIF            slapadd the file into the (stopped) database
#   slapd_start                start on a free loopback port, wait for it
#   slapd_search SCOPE BASE FILTER [ATTR...]   one ldapsearch as the rootdn
#   slapd_run_searches SPEC OUT                a list of searches, recorded
#   slapd_stop                 stop it (by PID); also run from the EXIT trap
#
# Invariants:
#   - Everything lives under the suite's DIR: configuration, database,
#     pid and log files.  Nothing under /etc/ldap or /var/lib/ldap is read
#     or written, except the schema files included read-only.
#   - slapd listens on 127.0.0.1 only, on a port nobody listens on when it
#     starts; the rootpw is random per run, so an answer from a slapd that
#     is not ours cannot be mistaken for ours.
#   - The slapd we start is stopped by PID when the shell exits, is
#     interrupted or terminated (trap on EXIT INT TERM), whatever failed.
#     A suite that sets its own EXIT trap must call slapd_stop in it.
#   - ldapsearch reads no ldap.conf or ldaprc (LDAPNOINIT).
#
# Suites customise the configuration before slapd_setup through
#   SLAPD_SUFFIX       (default dc=example,dc=com)
#   SLAPD_GLOBAL_EXTRA text put before the database section (moduleload of
#                      overlays, extra schema, ...)
#   SLAPD_DB_EXTRA     text put at the end of the database section (access
#                      rules, overlays, limits, ...)
#
# Output format of slapd_run_searches (read by tests/differential/dt_results.c):
#   "# search N", the "dn:" / "dn::" lines ldapsearch printed (with the
#   attributes asked for, if any), then "# rc R" where R is ldapsearch's exit
#   status: the LDAP result code, or 249 when ldapsearch refused the filter.

SLAPD_SUFFIX=${SLAPD_SUFFIX:-dc=example,dc=com}
SLAPD_ROOTDN=${SLAPD_ROOTDN:-cn=admin,$SLAPD_SUFFIX}
SLAPD_ROOTPW=
SLAPD_DIR=
SLAPD_PID=
SLAPD_PORT=
SLAPD_URI=
SLAPD_BIN=${SLAPD_BIN:-/usr/sbin/slapd}
SLAPD_SCHEMA_DIR=${SLAPD_SCHEMA_DIR:-/etc/ldap/schema}
export LDAPNOINIT=1

slapd_log() {
	printf '%s\n' "slapd.sh: $*" >&2
}

# ---- installation -----------------------------------------------------------

slapd_have_tools() {
	[ -x "$SLAPD_BIN" ] && [ -x /usr/sbin/slapadd ] &&
		[ -x /usr/sbin/slaptest ] && command -v ldapsearch >/dev/null 2>&1 &&
		command -v ldapwhoami >/dev/null 2>&1
}

# Stop a slapd that the package installation started (policy-rc.d should
# have prevented it; Debian's pid file says which process it would be).
slapd_stop_system() {
	local f pid
	for f in /run/slapd/slapd.pid /var/run/slapd/slapd.pid; do
		[ -r "$f" ] || continue
		pid=$(cat "$f" 2>/dev/null)
		case $pid in '' | *[!0-9]*) continue ;; esac
		if [ "$(cat /proc/"$pid"/comm 2>/dev/null)" = slapd ]; then
			slapd_log "stopping the system slapd (pid $pid) started by the install"
			kill "$pid" 2>/dev/null
		fi
	done
}

slapd_require() {
	slapd_have_tools && return 0
	if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
		slapd_log "slapd and ldap-utils are missing; install them (Debian: apt-get install slapd ldap-utils)"
		return 1
	fi
	local made_policy=0 rc=0
	if [ ! -e /usr/sbin/policy-rc.d ]; then
		printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d
		chmod 755 /usr/sbin/policy-rc.d
		made_policy=1
	fi
	echo 'slapd slapd/no_configuration boolean true' | debconf-set-selections
	slapd_log "installing slapd and ldap-utils"
	DEBIAN_FRONTEND=noninteractive apt-get install -y slapd ldap-utils \
		>/dev/null 2>&1 ||
		{ apt-get update >/dev/null 2>&1 &&
			DEBIAN_FRONTEND=noninteractive apt-get install -y slapd ldap-utils \
				>/dev/null 2>&1; } || rc=1
	[ "$made_policy" = 1 ] && rm -f /usr/sbin/policy-rc.d
	slapd_stop_system
	[ $rc = 0 ] && slapd_have_tools || { slapd_log "installation failed"; return 1; }
}

# ---- configuration ------------------------------------------------------------

slapd_random_hex() {
	od -An -N8 -tx1 /dev/urandom | tr -d ' \n'
}

# slapd_setup DIR [SCHEMA...] -- SCHEMA names files of $SLAPD_SCHEMA_DIR
# (without .schema) or absolute paths; default core cosine inetorgperson nis.
slapd_setup() {
	SLAPD_DIR=$1
	shift
	[ $# -gt 0 ] || set -- core cosine inetorgperson nis
	mkdir -p "$SLAPD_DIR/db" || return 1
	SLAPD_ROOTPW=$(slapd_random_hex)
	trap 'slapd_stop' EXIT
	trap 'slapd_stop; exit 130' INT
	trap 'slapd_stop; exit 143' TERM
	slapd_write_conf "$@" >"$SLAPD_DIR/slapd.conf" || return 1
	/usr/sbin/slaptest -u -f "$SLAPD_DIR/slapd.conf" >"$SLAPD_DIR/slaptest.log" 2>&1 ||
		{ slapd_log "slaptest rejected $SLAPD_DIR/slapd.conf:"; cat "$SLAPD_DIR/slaptest.log" >&2; return 1; }
}

# slapd_use_dir DIR -- run the slapd.conf the suite wrote in DIR (its
# storage and pid file must be in DIR too); SLAPD_ROOTDN and SLAPD_ROOTPW
# must be those of one of its databases (the readiness probe binds so).
slapd_use_dir() {
	SLAPD_DIR=$1
	trap 'slapd_stop' EXIT
	trap 'slapd_stop; exit 130' INT
	trap 'slapd_stop; exit 143' TERM
}

slapd_write_conf() {
	local s
	echo "# written by tests/differential/slapd.sh"
	for s in "$@"; do
		case $s in
		/*) echo "include $s" ;;
		*) echo "include $SLAPD_SCHEMA_DIR/$s.schema" ;;
		esac
	done
	cat <<EOF
pidfile $SLAPD_DIR/slapd.pid
argsfile $SLAPD_DIR/slapd.args
modulepath /usr/lib/ldap
moduleload back_mdb
${SLAPD_GLOBAL_EXTRA:-}

database mdb
suffix "$SLAPD_SUFFIX"
rootdn "$SLAPD_ROOTDN"
rootpw $SLAPD_ROOTPW
directory $SLAPD_DIR/db
maxsize 1073741824
sizelimit unlimited
${SLAPD_DB_EXTRA:-}
EOF
}

slapd_load() {
	/usr/sbin/slapadd -q -f "$SLAPD_DIR/slapd.conf" -l "$1" \
		>"$SLAPD_DIR/slapadd.log" 2>&1 ||
		{ slapd_log "slapadd rejected $1:"; cat "$SLAPD_DIR/slapadd.log" >&2; return 1; }
}

# ---- running ----------------------------------------------------------------------

# Is a TCP port in LISTEN state on this machine (IPv4 or IPv6)?
slapd_port_busy() {
	local hex
	hex=$(printf ':%04X ' "$1")
	cat /proc/net/tcp /proc/net/tcp6 2>/dev/null | awk -v p="$hex" \
		'index($2 " ", p) && $4 == "0A" { found = 1 } END { exit !found }'
}

# Is our slapd answering?  A bind as the rootdn works whatever the data
# and the access rules are (a search could be refused by either).
slapd_probe() {
	ldapwhoami -x -H "$SLAPD_URI" -D "$SLAPD_ROOTDN" -w "$SLAPD_ROOTPW" \
		>/dev/null 2>&1
}

# Start slapd on PORT; 0 once it answers us, 1 when it died (port taken).
slapd_try_port() {
	local i
	SLAPD_PORT=$1
	SLAPD_URI=ldap://127.0.0.1:$SLAPD_PORT
	"$SLAPD_BIN" -d 0 -h "$SLAPD_URI/" -f "$SLAPD_DIR/slapd.conf" \
		>>"$SLAPD_DIR/slapd.log" 2>&1 </dev/null &
	SLAPD_PID=$!
	for i in $(seq 1 500); do
		if ! kill -0 "$SLAPD_PID" 2>/dev/null; then
			wait "$SLAPD_PID" 2>/dev/null
			SLAPD_PID=
			return 1
		fi
		slapd_probe && return 0
		sleep 0.02
	done
	slapd_log "slapd (pid $SLAPD_PID) did not answer on $SLAPD_URI in 10 s"
	slapd_stop
	return 1
}

slapd_start() {
	local try port
	for try in $(seq 1 20); do
		port=$((20000 + $(od -An -N2 -tu2 /dev/urandom | tr -d ' ') % 40000))
		slapd_port_busy "$port" && continue
		slapd_try_port "$port" && return 0
	done
	slapd_log "could not start slapd; log:"
	tail -20 "$SLAPD_DIR/slapd.log" >&2
	return 1
}

slapd_stop() {
	local i
	[ -n "$SLAPD_PID" ] || return 0
	kill "$SLAPD_PID" 2>/dev/null
	for i in $(seq 1 100); do
		kill -0 "$SLAPD_PID" 2>/dev/null || break
		sleep 0.05
	done
	kill -0 "$SLAPD_PID" 2>/dev/null && kill -9 "$SLAPD_PID" 2>/dev/null
	wait "$SLAPD_PID" 2>/dev/null
	SLAPD_PID=
}

# ---- searching -------------------------------------------------------------------

# slapd_search_as BINDDN PW SCOPE BASE FILTER [ATTR...] (BINDDN empty: anonymous)
slapd_search_as() {
	local dn=$1 pw=$2 scope=$3 base=$4 filter=$5
	shift 5
	[ $# -gt 0 ] || set -- 1.1
	if [ -n "$dn" ]; then
		ldapsearch -x -H "$SLAPD_URI" -D "$dn" -w "$pw" -LLL -o ldif-wrap=no \
			-b "$base" -s "$scope" "$filter" "$@"
	else
		ldapsearch -x -H "$SLAPD_URI" -LLL -o ldif-wrap=no \
			-b "$base" -s "$scope" "$filter" "$@"
	fi
}

slapd_search() {
	slapd_search_as "$SLAPD_ROOTDN" "$SLAPD_ROOTPW" "$@"
}

# slapd_run_searches SPEC OUT -- SPEC has one search per line:
#   SCOPE<TAB>BASE<TAB>FILTER[<TAB>ATTRS[<TAB>BINDDN<TAB>PASSWORD]]
# (ATTRS space-separated, default 1.1; BINDDN default the rootdn).  One
# ldapsearch per search: about 12 ms each here.  stderr goes to OUT.err.
slapd_run_searches() {
	local spec=$1 out=$2 line scope base filter rest attrs dn pw n=0 rc
	local - # ATTRS is split on spaces below, never globbed
	set -f
	: >"$out"
	: >"$out.err"
	while IFS= read -r line || [ -n "$line" ]; do
		n=$((n + 1))
		scope=${line%%	*}
		rest=${line#*	}
		base=${rest%%	*}
		rest=${rest#*	}
		filter=${rest%%	*}
		attrs=1.1 dn=$SLAPD_ROOTDN pw=$SLAPD_ROOTPW
		if [ "$rest" != "$filter" ]; then
			rest=${rest#*	}
			attrs=${rest%%	*}
			if [ "$rest" != "$attrs" ]; then
				rest=${rest#*	}
				dn=${rest%%	*}
				pw=${rest#*	}
			fi
		fi
		printf '# search %d\n' "$n" >>"$out"
		# shellcheck disable=SC2086 # ATTRS is a list
		slapd_search_as "$dn" "$pw" "$scope" "$base" "$filter" $attrs \
			>>"$out" 2>>"$out.err"
		rc=$?
		printf '# rc %d\n' "$rc" >>"$out"
	done <"$spec"
}
