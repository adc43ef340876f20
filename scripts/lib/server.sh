# shellcheck shell=bash
# scripts/lib/server.sh: what the scripts/with-*.sh wrappers share. Each
# wrapper installs an emulator from npm, pinned, under .cache/; starts it
# on a free loopback port; waits until it answers; runs a command with the
# endpoint in an environment variable; stops the emulator when the command
# ends, and exits with the command's status. Source it after
# `set -euo pipefail`, then:
#
#	server_setup NAME HINT "$@"   usage and tool checks, $root, $work, traps
#	server_version DIR            version of the npm package in DIR ("" if none)
#	server_install PREFIX SPEC... npm install the SPECs, pinned, under PREFIX
#	server_start CMD [ARG...]     start the server; its first stdout line is its port
#	server_wait TARGET MAX        wait until it answers; sets $endpoint
#	server_run VAR CMD [ARG...]   run CMD with VAR=$endpoint; exit with its status

# START_TIMEOUT_S bounds the wait for the server to answer.
START_TIMEOUT_S=30

server_name=""
server_pid=""
work=""
endpoint=""

# server_setup NAME HINT CMD...: NAME, with-<server>, prefixes every
# message; HINT says why node and npm are needed when one is missing.
# Exits 2 without CMD.
server_setup() {
	server_name="$1"
	local hint="$2"
	shift 2
	if [ "$#" -eq 0 ]; then
		echo "usage: $0 CMD [ARG...]" >&2
		exit 2
	fi
	local tool
	for tool in node npm; do
		if ! command -v "$tool" >/dev/null; then
			echo "$server_name: $tool not found; $hint" >&2
			exit 1
		fi
	done
	# shellcheck disable=SC2034 # root is the wrappers': where .cache/ is
	root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
	work="$(mktemp -d)"
	trap server_cleanup EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
}

# server_cleanup stops the server: TERM, then KILL if it is still there
# after 5 s (a TERM that lands between fork and exec is taken by the
# shell's trap, not by the server).
server_cleanup() {
	if [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null; then
		for _ in $(seq 50); do
			kill -0 "$server_pid" 2>/dev/null || break
			sleep 0.1
		done
		kill -KILL "$server_pid" 2>/dev/null || true
		wait "$server_pid" 2>/dev/null || true
	fi
	rm -rf "$work"
}

# server_version DIR prints the version of the npm package installed in
# DIR, or nothing.
server_version() {
	node -p 'try { require(process.argv[1] + "/package.json").version } catch { "" }' "$1"
}

# server_install PREFIX SPEC... installs the packages, exact versions,
# under PREFIX.
server_install() {
	local prefix="$1"
	shift
	echo "$server_name: installing $* into $prefix" >&2
	mkdir -p "$prefix"
	npm install --prefix "$prefix" --no-audit --no-fund --save-exact --loglevel=error "$@" >&2
}

# server_start CMD [ARG...] runs the server in the background. It must
# listen on 127.0.0.1 port 0 (the kernel picks a free port, with no race
# between choosing and binding it) and print the port it got as its first
# line. The files exist before it starts: the background job's
# redirections are made after the fork, possibly after server_wait first
# reads them.
server_start() {
	: >"$work/port"
	: >"$work/log"
	"$@" >"$work/port" 2>"$work/log" &
	server_pid=$!
}

# server_answers URL TARGET MAX: the server replies to an AWS JSON 1.0
# call of X-Amz-Target TARGET with a status from 200 to MAX.
server_answers() {
	node -e '
		const [url, target, max] = process.argv.slice(1);
		fetch(url, {
			method: "POST",
			headers: {"X-Amz-Target": target, "Content-Type": "application/x-amz-json-1.0"},
			body: "{}",
		}).then(r => process.exit(r.status >= 200 && r.status <= Number(max) ? 0 : 1), () => process.exit(1));
	' "$1" "$2" "$3"
}

# server_wait TARGET MAX waits until the server answers (see
# server_answers) and sets endpoint; exits 1, with the server's log, if
# it exits first or does not answer within START_TIMEOUT_S.
server_wait() {
	local deadline=$((SECONDS + START_TIMEOUT_S)) port
	while :; do
		if ! kill -0 "$server_pid" 2>/dev/null; then
			echo "$server_name: ${server_name#with-} exited during start-up:" >&2
			cat "$work/log" >&2
			exit 1
		fi
		port="$(head -n1 "$work/port")"
		if [ -n "$port" ] && server_answers "http://127.0.0.1:$port" "$1" "$2"; then
			endpoint="http://127.0.0.1:$port"
			return
		fi
		if [ "$SECONDS" -ge "$deadline" ]; then
			echo "$server_name: ${server_name#with-} did not answer within ${START_TIMEOUT_S}s:" >&2
			cat "$work/log" >&2
			exit 1
		fi
		sleep 0.1
	done
}

# server_run VAR CMD [ARG...] runs CMD with VAR set to the endpoint and
# exits with its status (the EXIT trap stops the server).
server_run() {
	local status=0
	export "$1=$endpoint"
	shift
	"$@" || status=$?
	exit "$status"
}
