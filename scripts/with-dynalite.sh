#!/usr/bin/env bash
# with-dynalite.sh CMD [ARG...]
#
# Runs CMD with DDB_ENDPOINT pointing at a fresh in-memory dynalite (a
# DynamoDB-compatible server from npm) on a free loopback port, stops it when
# CMD ends, and exits with CMD's status. dynalite is installed, pinned, under
# .cache/dynalite the first time; only node and npm are needed.
set -euo pipefail

DYNALITE_VERSION=4.0.0 # needs Node >= 20; ships prebuilt LevelDB bindings
START_TIMEOUT_S=30

if [ "$#" -eq 0 ]; then
	echo "usage: $0 CMD [ARG...]" >&2
	exit 2
fi
for tool in node npm; do
	if ! command -v "$tool" >/dev/null; then
		echo "with-dynalite: $tool not found; dynalite needs Node.js >= 20 and npm" >&2
		exit 1
	fi
done

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
prefix="$root/.cache/dynalite"
module="$prefix/node_modules/dynalite"

installed="$(node -p 'try { require(process.argv[1] + "/package.json").version } catch { "" }' "$module")"
if [ "$installed" != "$DYNALITE_VERSION" ]; then
	echo "with-dynalite: installing dynalite@$DYNALITE_VERSION into $prefix" >&2
	mkdir -p "$prefix"
	npm install --prefix "$prefix" --no-audit --no-fund --save-exact --loglevel=error \
		"dynalite@$DYNALITE_VERSION" >&2
fi

work="$(mktemp -d)"
pid=""
# cleanup stops dynalite: TERM, then KILL if it is still there after 5 s (a
# TERM that lands between fork and exec is taken by the shell's trap, not
# by node).
cleanup() {
	if [ -n "$pid" ] && kill "$pid" 2>/dev/null; then
		for _ in $(seq 50); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
		kill -KILL "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	fi
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Listening on port 0 lets the kernel pick a free loopback port with no race
# between choosing it and binding it; the server prints the port it got.
# Tables become ACTIVE at once instead of after dynalite's default 500 ms.
# The files exist before node starts: the background job's redirections are
# made after the fork, possibly after the loop below first reads them.
: >"$work/port"
: >"$work/log"
node -e '
	const server = require(process.argv[1])({createTableMs: 0, deleteTableMs: 0, updateTableMs: 0});
	server.listen(0, "127.0.0.1", () => console.log(server.address().port));
' "$module" >"$work/port" 2>"$work/log" &
pid=$!

# answers ENDPOINT: dynalite replies to a DynamoDB request (with any status
# below 500; the unsigned request is refused, which is still an answer).
answers() {
	node -e '
		fetch(process.argv[1], {
			method: "POST",
			headers: {"X-Amz-Target": "DynamoDB_20120810.ListTables", "Content-Type": "application/x-amz-json-1.0"},
			body: "{}",
		}).then(r => process.exit(r.status < 500 ? 0 : 1), () => process.exit(1));
	' "$1"
}

endpoint=""
deadline=$((SECONDS + START_TIMEOUT_S))
while :; do
	if ! kill -0 "$pid" 2>/dev/null; then
		echo "with-dynalite: dynalite exited during start-up:" >&2
		cat "$work/log" >&2
		exit 1
	fi
	port="$(head -n1 "$work/port")"
	if [ -n "$port" ] && answers "http://127.0.0.1:$port"; then
		endpoint="http://127.0.0.1:$port"
		break
	fi
	if [ "$SECONDS" -ge "$deadline" ]; then
		echo "with-dynalite: dynalite did not answer within ${START_TIMEOUT_S}s:" >&2
		cat "$work/log" >&2
		exit 1
	fi
	sleep 0.1
done

echo "with-dynalite: dynalite@$DYNALITE_VERSION at $endpoint" >&2
status=0
DDB_ENDPOINT="$endpoint" "$@" || status=$?
exit "$status"
