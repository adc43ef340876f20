#!/usr/bin/env bash
# with-fauxqs.sh CMD [ARG...]
#
# Runs CMD with SQS_ENDPOINT pointing at a fresh in-memory fauxqs (an
# SQS/SNS/S3 emulator from npm) on a free loopback port, stops it when CMD
# ends, and exits with CMD's status. fauxqs needs Node >= 22.5 (node:sqlite),
# so a pinned Node 22 from npm is installed beside it, under .cache/fauxqs,
# the first time; only a node (any version) and npm are needed to start.
set -euo pipefail

FAUXQS_VERSION=2.4.1
NODE_VERSION=22.23.3 # the npm "node" package: a Node 22 binary for fauxqs
START_TIMEOUT_S=30

if [ "$#" -eq 0 ]; then
	echo "usage: $0 CMD [ARG...]" >&2
	exit 2
fi
for tool in node npm; do
	if ! command -v "$tool" >/dev/null; then
		echo "with-fauxqs: $tool not found; installing fauxqs needs Node.js and npm" >&2
		exit 1
	fi
done

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
prefix="$root/.cache/fauxqs"
module="$prefix/node_modules/fauxqs"
node22="$prefix/node_modules/.bin/node"

version_of() {
	node -p 'try { require(process.argv[1] + "/package.json").version } catch { "" }' "$1"
}
if [ "$(version_of "$module")" != "$FAUXQS_VERSION" ] ||
	[ "$(version_of "$prefix/node_modules/node")" != "$NODE_VERSION" ] ||
	[ ! -x "$node22" ]; then
	echo "with-fauxqs: installing fauxqs@$FAUXQS_VERSION and node@$NODE_VERSION into $prefix" >&2
	mkdir -p "$prefix"
	npm install --prefix "$prefix" --no-audit --no-fund --save-exact --loglevel=error \
		"node@$NODE_VERSION" "fauxqs@$FAUXQS_VERSION" >&2
fi

work="$(mktemp -d)"
pid=""
cleanup() {
	if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
		kill "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	fi
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# The port file exists before the server starts, so the loop below never
# reads a file the background job has not opened yet.
: >"$work/port"

# fauxqs's own CLI listens on all interfaces on FAUXQS_PORT; building its
# app and listening on 127.0.0.1 port 0 instead keeps it on loopback and
# lets the kernel pick a free port with no race. The server prints the
# port it got. Request logging is off.
"$node22" --input-type=module -e '
	const { buildApp } = await import(process.argv[1] + "/dist/app.js");
	const app = buildApp({ logger: false });
	await app.listen({ port: 0, host: "127.0.0.1" });
	console.log(app.server.address().port);
' "$module" >"$work/port" 2>"$work/log" &
pid=$!

# answers ENDPOINT: fauxqs replies to an SQS ListQueues call.
answers() {
	node -e '
		fetch(process.argv[1], {
			method: "POST",
			headers: {"X-Amz-Target": "AmazonSQS.ListQueues", "Content-Type": "application/x-amz-json-1.0"},
			body: "{}",
		}).then(r => process.exit(r.status === 200 ? 0 : 1), () => process.exit(1));
	' "$1"
}

endpoint=""
deadline=$((SECONDS + START_TIMEOUT_S))
while :; do
	if ! kill -0 "$pid" 2>/dev/null; then
		echo "with-fauxqs: fauxqs exited during start-up:" >&2
		cat "$work/log" >&2
		exit 1
	fi
	port="$(head -n1 "$work/port")"
	if [ -n "$port" ] && answers "http://127.0.0.1:$port"; then
		endpoint="http://127.0.0.1:$port"
		break
	fi
	if [ "$SECONDS" -ge "$deadline" ]; then
		echo "with-fauxqs: fauxqs did not answer within ${START_TIMEOUT_S}s:" >&2
		cat "$work/log" >&2
		exit 1
	fi
	sleep 0.1
done

echo "with-fauxqs: fauxqs@$FAUXQS_VERSION at $endpoint" >&2
status=0
SQS_ENDPOINT="$endpoint" "$@" || status=$?
exit "$status"
