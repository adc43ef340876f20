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

# shellcheck source=lib/server.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/server.sh"
server_setup with-fauxqs "installing fauxqs needs Node.js and npm" "$@"

prefix="$root/.cache/fauxqs"
module="$prefix/node_modules/fauxqs"
node22="$prefix/node_modules/.bin/node"
if [ "$(server_version "$module")" != "$FAUXQS_VERSION" ] ||
	[ "$(server_version "$prefix/node_modules/node")" != "$NODE_VERSION" ] ||
	[ ! -x "$node22" ]; then
	server_install "$prefix" "node@$NODE_VERSION" "fauxqs@$FAUXQS_VERSION"
fi

# fauxqs's own CLI listens on all interfaces on FAUXQS_PORT; building its
# app and listening on 127.0.0.1 port 0 instead keeps it on loopback.
# Request logging is off.
server_start "$node22" --input-type=module -e '
	const { buildApp } = await import(process.argv[1] + "/dist/app.js");
	const app = buildApp({ logger: false });
	await app.listen({ port: 0, host: "127.0.0.1" });
	console.log(app.server.address().port);
' "$module"
server_wait AmazonSQS.ListQueues 200

echo "with-fauxqs: fauxqs@$FAUXQS_VERSION at $endpoint" >&2
server_run SQS_ENDPOINT "$@"
