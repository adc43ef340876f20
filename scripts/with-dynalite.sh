#!/usr/bin/env bash
# with-dynalite.sh CMD [ARG...]
#
# Runs CMD with DDB_ENDPOINT pointing at a fresh in-memory dynalite (a
# DynamoDB-compatible server from npm) on a free loopback port, stops it when
# CMD ends, and exits with CMD's status. dynalite is installed, pinned, under
# .cache/dynalite the first time; only node and npm are needed.
set -euo pipefail

DYNALITE_VERSION=4.0.0 # needs Node >= 20; ships prebuilt LevelDB bindings

# shellcheck source=lib/server.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/server.sh"
server_setup with-dynalite "dynalite needs Node.js >= 20 and npm" "$@"

prefix="$root/.cache/dynalite"
module="$prefix/node_modules/dynalite"
if [ "$(server_version "$module")" != "$DYNALITE_VERSION" ]; then
	server_install "$prefix" "dynalite@$DYNALITE_VERSION"
fi

# Tables become ACTIVE at once instead of after dynalite's default 500 ms.
server_start node -e '
	const server = require(process.argv[1])({createTableMs: 0, deleteTableMs: 0, updateTableMs: 0});
	server.listen(0, "127.0.0.1", () => console.log(server.address().port));
' "$module"
# Any status below 500 is an answer: the unsigned request is refused.
server_wait DynamoDB_20120810.ListTables 499

echo "with-dynalite: dynalite@$DYNALITE_VERSION at $endpoint" >&2
server_run DDB_ENDPOINT "$@"
