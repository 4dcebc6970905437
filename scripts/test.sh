#!/usr/bin/env bash
# The test command (`npm test`), on whichever Node.js is first on PATH: static checks, a build,
# then every unit and end-to-end test on SQLite, and again on MariaDB/MySQL when one answers.
# Arguments go to each Jest run, to run a selection: `npm test -- test/holders.e2e-spec.ts`.
#   TEST_MYSQL_URL  server for the MariaDB/MySQL run (default mysql://root@127.0.0.1:3306/test)
#                   The MariaDB/MySQL run also starts a throw-away MariaDB primary and replica
#                   (scripts/replica-pair.sh) for test/read-replicas.e2e-spec.ts, when the
#                   selection holds it; without mariadbd on the machine that test is skipped.
#   TEST_REDIS_URL  Redis for the shared rate-limit store test (default redis://127.0.0.1:6379)
#   REQUIRE_MYSQL=1 fail instead of falling back to SQLite when the server is unreachable
#   TEST_DATABASES  the runs, in order (default "sqlite mysql"; "sqlite" or "mysql" for one)
#   TEST_CHECKS=0   leave out the type check, lint and format check (CI runs them once)
#   JEST_TIME_LIMIT longest one Jest run may take (default 35m; `timeout` syntax)
# Installs nothing: Chromium for test/browser.e2e-spec.ts is the machine's (.ci/run installs
# Debian's), and that suite is skipped, saying so, without it.
set -euo pipefail
cd "$(dirname "$0")/.."

export TEST_MYSQL_URL="${TEST_MYSQL_URL:-mysql://root@127.0.0.1:3306/test}"
export TEST_REDIS_URL="${TEST_REDIS_URL:-redis://127.0.0.1:6379}"
read -r -a DATABASES <<< "${TEST_DATABASES:-sqlite mysql}"
for database in "${DATABASES[@]}"; do
  case "$database" in
    sqlite | mysql) ;;
    *)
      echo "TEST_DATABASES: unknown database '$database' (sqlite, mysql)" >&2
      exit 2
      ;;
  esac
done

if [ "${TEST_CHECKS:-1}" != "0" ]; then
  echo "== typecheck, lint, format"
  npx tsc --noEmit -p tsconfig.json
  # The TypeScript benches (bench:fanout, bench:schedule) are not run here, but must still compile.
  npx tsc --noEmit -p bench/tsconfig.json
  npx eslint . --max-warnings 0
  npx prettier --check . > /dev/null || { npx prettier --check .; exit 1; }
fi

if ! node scripts/reachable.js redis "$TEST_REDIS_URL"; then
  echo "(Redis not reachable at $TEST_REDIS_URL: the shared rate-limit store test is left out)"
  unset TEST_REDIS_URL
fi
if [ ! -x "${CHROMIUM_PATH:-/usr/bin/chromium}" ]; then
  echo "(No Chromium at ${CHROMIUM_PATH:-/usr/bin/chromium}: test/browser.e2e-spec.ts is skipped;" \
    "install Debian's chromium package, or set CHROMIUM_PATH)"
fi
if ! node -e '
  const [major, minor] = process.versions.node.split(".").map(Number);
  process.exit(major > 24 || (major === 24 && minor >= 12) ? 0 : 1);'; then
  echo "(@walletpass/pass-js 7 needs Node.js 24.12: its checks are skipped on $(node -v))"
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
  local dialect=$1 status=0
  TEST_DB="$dialect" timeout --kill-after=30s "$JEST_TIME_LIMIT" \
    npx jest --config jest.config.js --forceExit "${JEST_SELECTION[@]}" || status=$?
  if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
    echo "The $dialect test run did not finish within $JEST_TIME_LIMIT (JEST_TIME_LIMIT)" >&2
  fi
  return "$status"
}
JEST_SELECTION=("$@")

# test/read-replicas.e2e-spec.ts needs a MariaDB primary and a replica of their own, on free
# ports, from fresh data directories: started for the MariaDB/MySQL run when the selection holds
# that test, stopped when this script ends.
start_replica_pair() {
  if [ -n "${REPLICA_PAIR_DIR:-}" ]; then return 0; fi
  local selected assignments status=0
  selected=$(npx jest --config jest.config.js --listTests "${JEST_SELECTION[@]}" 2> /dev/null) || true
  if [[ "$selected" != *read-replicas.e2e-spec.ts* ]]; then return 0; fi
  assignments=$(scripts/replica-pair.sh start) || status=$?
  if [ "$status" -eq 0 ]; then
    eval "$assignments"
    trap 'scripts/replica-pair.sh stop' EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
  elif [ "$status" -eq 3 ]; then
    echo "(No MariaDB server binary here: test/read-replicas.e2e-spec.ts is skipped)"
  else
    echo "Could not start the MariaDB primary and replica (scripts/replica-pair.sh)" >&2
    exit 1
  fi
}

for database in "${DATABASES[@]}"; do
  if [ "$database" = sqlite ]; then
    echo "== tests on SQLite, Node.js $(node -v)"
    run_jest sqlite
  elif node scripts/reachable.js mysql "$TEST_MYSQL_URL"; then
    echo "== tests on MariaDB/MySQL ($TEST_MYSQL_URL), Node.js $(node -v)"
    start_replica_pair
    run_jest mysql
  elif [ "${REQUIRE_MYSQL:-0}" = "1" ]; then
    echo "MariaDB/MySQL is not reachable at $TEST_MYSQL_URL and REQUIRE_MYSQL=1" >&2
    exit 1
  else
    echo "== tests on SQLite, Node.js $(node -v) (MariaDB/MySQL not reachable at $TEST_MYSQL_URL)"
    run_jest sqlite
  fi
done
