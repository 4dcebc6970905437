#!/usr/bin/env bash
# The test command (`npm test`): static checks, then every unit and end-to-end test on the
# embedded SQLite database and, when a MariaDB/MySQL server is reachable, again on it.
#   TEST_MYSQL_URL  server for the second run (default mysql://root@127.0.0.1:3306/test)
#   TEST_REDIS_URL  Redis for the shared rate-limit store test (default redis://127.0.0.1:6379)
#   REQUIRE_MYSQL=1 fail instead of skipping the MariaDB run when the server is unreachable
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

echo "== tests on SQLite"
TEST_DB=sqlite npx jest --config jest.config.js

if node scripts/reachable.js mysql "$TEST_MYSQL_URL"; then
  echo "== tests on MariaDB/MySQL ($TEST_MYSQL_URL)"
  TEST_DB=mysql npx jest --config jest.config.js
elif [ "${REQUIRE_MYSQL:-0}" = "1" ]; then
  echo "MariaDB/MySQL is not reachable at $TEST_MYSQL_URL and REQUIRE_MYSQL=1" >&2
  exit 1
else
  echo "(MariaDB/MySQL not reachable at $TEST_MYSQL_URL: the second run is left out)"
fi
