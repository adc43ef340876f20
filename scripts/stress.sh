#!/usr/bin/env bash
# stress.sh [ROUNDS]
#
# Runs the repository's race-enabled unit and end-to-end tests (go test
# -race -count=1 $STRESS_PKGS, default ./...) ROUNDS times (default 5),
# two runs at once each round, so every test also runs on a loaded
# machine: a test that depends on the machine's load or on what other
# tests leave behind shows here. Logs go to .cache/stress/; it prints one
# line per round and the failed tests, and exits 1 if any run failed.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

rounds=${1:-5}
pkgs=${STRESS_PKGS:-./...}
go=${GO:-go}
case $rounds in '' | *[!0-9]* | 0)
	echo "stress.sh: ROUNDS must be a positive whole number, got \"$rounds\"" >&2
	exit 2
	;;
esac
logs=.cache/stress
mkdir -p "$logs"
failed=0

# check LOG STATUS counts a run that failed and names its failed tests.
check() {
	[ "$2" -eq 0 ] && return
	failed=$((failed + 1))
	grep -E '^(--- FAIL|FAIL\s)' "$1" | sed "s|^|  $1: |"
}

for r in $(seq "$rounds"); do
	# $pkgs is split on purpose: STRESS_PKGS may name several packages.
	"$go" test -race -count=1 $pkgs >"$logs/round$r-a.log" 2>&1 &
	a=$!
	"$go" test -race -count=1 $pkgs >"$logs/round$r-b.log" 2>&1 &
	b=$!
	wait $a
	ra=$?
	wait $b
	rb=$?
	echo "stress: round $r of $rounds: run a exit $ra, run b exit $rb ($(date +%T))"
	check "$logs/round$r-a.log" $ra
	check "$logs/round$r-b.log" $rb
done
if [ "$failed" -gt 0 ]; then
	echo "stress: $failed of $((2 * rounds)) runs failed; logs in $logs/"
	exit 1
fi
echo "stress: $((2 * rounds)) runs, no failure"
