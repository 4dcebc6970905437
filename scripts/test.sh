#!/usr/bin/env bash
# The test command (`npm test`): static checks, then every unit and end-to-end test twice, once
# on each supported Node.js line and database:
#   SQLite on Node.js 24 (the current LTS; scripts/node24.sh installs the pinned binary)
#   MariaDB/MySQL on this machine's Node.js (20 in CI); SQLite instead when no server is reachable
# Arguments go to both Jest runs, to run a selection: `npm test -- test/holders.e2e-spec.ts`.
#   TEST_MYSQL_URL  server for the second run (default mysql://root@127.0.0.1:3306/test)
#   TEST_REDIS_URL  Redis for the shared rate-limit store test (default redis://127.0.0.1:6379)
#   REQUIRE_MYSQL=1 fail instead of falling back to SQLite when the server is unreachable
#   JEST_TIME_LIMIT longest one Jest run may take (default 35m; `timeout` syntax)
set -euo pipefail
cd "$(dirname "$0")/.."

export TEST_MYSQL_URL="${TEST_MYSQL_URL:-mysql://root@127.0.0.1:3306/test}"
export TEST_REDIS_URL="${TEST_REDIS_URL:-redis://127.0.0.1:6379}"

echo "== typecheck, lint, format"
npx tsc --noEmit -p tsconfig.json
# The TypeScript benches (bench:fanout, bench:schedule) are not run here, but must still compile.
npx tsc --noEmit -p bench/tsconfig.json
npx eslint . --max-warnings 0
npx prettier --check . > /dev/null || { npx prettier --check .; exit 1; }

if ! node scripts/reachable.js redis "$TEST_REDIS_URL"; then
  echo "(Redis not reachable at $TEST_REDIS_URL: the shared rate-limit store test is left out)"
  unset TEST_REDIS_URL
fi

# Debian's Chromium for test/browser.e2e-spec.ts (npm cannot download a browser here), so that
# this one command also works on a fresh machine; installing needs root and apt.
if [ -z "${CHROMIUM_PATH:-}" ] && [ ! -x /usr/bin/chromium ]; then
  echo "Installing Chromium"
  if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
    --no-install-recommends chromium; } > /tmp/chromium-install.log 2>&1; then
    tail -20 /tmp/chromium-install.log >&2
    echo "Could not install Chromium (apt-get install chromium); the browser test needs it" >&2
    exit 1
  fi
fi

# The worker crash test (test/faults/worker-sigkill.e2e-spec.ts) runs the built worker as a
# process of its own and kills it: build once, from this working tree, before the test runs.
echo "== build"
npx nest build api

# On two cores Jest runs every test file inside its own process, so one handle a test or a
# library leaves open (a socket, a reconnect timer) would keep it alive after the summary: a
# CI run once printed both runs green and then hung until its time ran out. --forceExit ends
# Jest once the results are in; the time limit turns any other hang into a red run that says so.
JEST_TIME_LIMIT="${JEST_TIME_LIMIT:-35m}"
run_jest() { # dialect, then the command to run Jest under (none: this machine's Node)
  local dialect=$1 status=0
  shift
  TEST_DB="$dialect" "$@" timeout --kill-after=30s "$JEST_TIME_LIMIT" \
    npx jest --config jest.config.js --forceExit "${JEST_SELECTION[@]}" || status=$?
  if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
    echo "The $dialect test run did not finish within $JEST_TIME_LIMIT (JEST_TIME_LIMIT)" >&2
  fi
  return "$status"
}
JEST_SELECTION=("$@")

# The Node 24 leg runs SQLite, whose native addon is the part that differs between Node lines;
# node24.sh installs and builds before the version is printed, and swaps the addon back after.
node24_version=$(bash scripts/node24.sh node -v)
echo "== tests on SQLite, Node.js $node24_version"
run_jest sqlite bash scripts/node24.sh

if node scripts/reachable.js mysql "$TEST_MYSQL_URL"; then
  echo "== tests on MariaDB/MySQL ($TEST_MYSQL_URL), Node.js $(node -v)"
  second_dialect=mysql
elif [ "${REQUIRE_MYSQL:-0}" = "1" ]; then
  echo "MariaDB/MySQL is not reachable at $TEST_MYSQL_URL and REQUIRE_MYSQL=1" >&2
  exit 1
else
  echo "== tests on SQLite, Node.js $(node -v) (MariaDB/MySQL not reachable at $TEST_MYSQL_URL)"
  second_dialect=sqlite
fi
if [ "$(node -p 'process.versions.node.split(".")[0]')" -lt 24 ]; then
  echo "(@walletpass/pass-js 7 needs Node.js 24.12: its checks run in the Node.js 24 run only)"
fi
run_jest "$second_dialect"
