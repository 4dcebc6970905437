#!/usr/bin/env bash
# The test command (`npm test`): static checks, then every unit and end-to-end test on the
# embedded SQLite database and, when a MariaDB/MySQL server is reachable, again on it.
#   TEST_MYSQL_URL  server for the second run (default mysql://root@127.0.0.1:3306/test)
#   TEST_REDIS_URL  Redis for the shared rate-limit store test (default redis://127.0.0.1:6379)
#   REQUIRE_MYSQL=1 fail instead of skipping the MariaDB run when the server is unreachable
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
run_jest() { # dialect
  local status=0
  TEST_DB="$1" timeout --kill-after=30s "$JEST_TIME_LIMIT" \
    npx jest --config jest.config.js --forceExit || status=$?
  if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
    echo "The $1 test run did not finish within $JEST_TIME_LIMIT (JEST_TIME_LIMIT)" >&2
  fi
  return "$status"
}

echo "== tests on SQLite"
run_jest sqlite

if node scripts/reachable.js mysql "$TEST_MYSQL_URL"; then
  echo "== tests on MariaDB/MySQL ($TEST_MYSQL_URL)"
  run_jest mysql
elif [ "${REQUIRE_MYSQL:-0}" = "1" ]; then
  echo "MariaDB/MySQL is not reachable at $TEST_MYSQL_URL and REQUIRE_MYSQL=1" >&2
  exit 1
else
  echo "(MariaDB/MySQL not reachable at $TEST_MYSQL_URL: the second run is left out)"
fi
