#!/usr/bin/env bash
# Runs one command on Node.js 24, from this checkout's root, whatever Node the machine has:
#   bash scripts/node24.sh npx jest --config jest.config.js libs/wallet-a
#   bash scripts/node24.sh npm run bench:api
# The Node 24 binary comes from the npm registry (the node-linux-<arch> package, which also
# carries the headers in include/node), at the version .ci/node24/package-lock.json pins, into
# .ci/node24/node_modules: never into the project's node_modules/.bin, where every npm script
# would pick it up. better-sqlite3's addon is built for it once (node-gyp against those headers,
# nothing fetched from nodejs.org) and swapped into node_modules/better-sqlite3 for the command
# only, since better-sqlite3 loads exactly one path; the project's own addon is put back after
# (after a run that was killed, by the next run). Without a command it installs, builds and
# puts back only.
# While a command runs, Node 20 processes of this checkout cannot open SQLite.
# The pin is 24.18.1: better-sqlite3 12 built against the headers of Node 24.19 or later aborts
# the process when the garbage collector finalizes a statement outside JavaScript (ObjectWrap's
# new cleanup hooks, nodejs/node#65446), which the check after the build below catches.
set -euo pipefail
cd "$(dirname "$0")/.."

NODE24=.ci/node24
PLATFORM_PACKAGE="node-$(node -p 'process.platform')-$(node -p 'process.arch')"
PINNED=$(node -p "require('./$NODE24/package.json').optionalDependencies['$PLATFORM_PACKAGE'] ?? ''")
if [ -z "$PINNED" ]; then
  echo "$NODE24/package.json pins no Node 24 package for this machine ($PLATFORM_PACKAGE)" >&2
  exit 1
fi
NODE24_HOME="$NODE24/node_modules/$PLATFORM_PACKAGE"
NODE24_BIN="$PWD/$NODE24_HOME/bin"

SQLITE_PACKAGE=node_modules/better-sqlite3
SQLITE_VERSION=$(node -p "require('./$SQLITE_PACKAGE/package.json').version")
ADDON="$SQLITE_PACKAGE/build/Release/better_sqlite3.node"
# Next to the addon it stands for, so that reinstalling better-sqlite3 drops both together.
PROJECT_ADDON="$ADDON.project"
NODE24_BUILD="$NODE24/node_modules/.cache/better-sqlite3-$SQLITE_VERSION-node-$PINNED"
NODE24_ADDON="$NODE24_BUILD/build/Release/better_sqlite3.node"

# One run at a time per checkout: a second one would take the first one's addon for the
# project's own.
exec 9< "$SQLITE_PACKAGE/build"
if ! flock -n 9; then
  echo "Another scripts/node24.sh run holds better-sqlite3 in this checkout" >&2
  exit 1
fi

put_back_project_addon() {
  if [ -f "$PROJECT_ADDON" ]; then mv -f "$PROJECT_ADDON" "$ADDON"; fi
}
# A run killed before it could put the project's addon back leaves it aside: put it back first.
put_back_project_addon

if [ "$("$NODE24_BIN/node" -p 'process.versions.node' 2> /dev/null || true)" != "$PINNED" ]; then
  echo "Installing Node.js $PINNED ($PLATFORM_PACKAGE) into $NODE24" >&2
  (cd "$NODE24" && npm ci --no-audit --no-fund --ignore-scripts --loglevel=error) >&2
fi

if [ ! -f "$NODE24_ADDON" ]; then
  echo "Building better-sqlite3 $SQLITE_VERSION for Node.js $PINNED (once; minutes)" >&2
  # Built in a copy of the package's sources, so the project's own build stays as npm made it,
  # and renamed into place only once complete, so an interrupted build is never used.
  rm -rf "$NODE24_BUILD.tmp"
  mkdir -p "$NODE24_BUILD.tmp"
  cp -R "$SQLITE_PACKAGE"/{package.json,binding.gyp,deps,src} "$NODE24_BUILD.tmp/"
  # npm_config_nodedir overrides a nodedir in the user's .npmrc (the system Node's headers).
  headers="$PWD/$NODE24_HOME"
  if ! (cd "$NODE24_BUILD.tmp" && PATH="$NODE24_BIN:$PATH" npm_config_nodedir="$headers" \
    npm run build-release) > "$NODE24_BUILD.log" 2>&1; then
    tail -30 "$NODE24_BUILD.log" >&2
    echo "Could not build better-sqlite3 for Node.js $PINNED (log: $NODE24_BUILD.log)" >&2
    exit 1
  fi
  # Thousands of statements left to the garbage collector, which finalizes them while the
  # process idles: a build with the ObjectWrap abort above dies here, within a second.
  gc_check="const Database = require('better-sqlite3');
    const db = new Database(':memory:', { nativeBinding: process.argv[1] });
    for (let i = 0; i < 50000; i++) db.prepare('select ' + i).get();
    setTimeout(() => {}, 2000);"
  if ! "$NODE24_BIN/node" -e "$gc_check" "$PWD/$NODE24_BUILD.tmp/build/Release/better_sqlite3.node" \
    > "$NODE24_BUILD.check.log" 2>&1; then
    head -5 "$NODE24_BUILD.check.log" >&2
    echo "better-sqlite3 built for Node.js $PINNED aborts when its statements are collected" >&2
    exit 1
  fi
  rm -rf "$NODE24_BUILD"
  mv "$NODE24_BUILD.tmp" "$NODE24_BUILD"
fi

if [ "$#" -eq 0 ]; then exit 0; fi

if [ -L node_modules ]; then
  echo "node_modules is a link, shared with other checkouts: their Node 20 processes cannot" \
    "open SQLite until this command ends" >&2
fi

# A signal ends the script through `exit`, which runs the EXIT trap (bash skips it otherwise).
trap put_back_project_addon EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
mv "$ADDON" "$PROJECT_ADDON"
cp "$NODE24_ADDON" "$ADDON.tmp"
mv "$ADDON.tmp" "$ADDON"

status=0
# The lock stays with this script: the command and anything it leaves running do not inherit it.
PATH="$NODE24_BIN:$PATH" "$@" 9<&- || status=$?
exit "$status"
