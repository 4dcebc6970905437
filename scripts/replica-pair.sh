#!/usr/bin/env bash
# A throw-away MariaDB primary and read replica for test/read-replicas.e2e-spec.ts, each a server
# of its own on a free port of 127.0.0.1, with its data, socket, pid file and log in one
# temporary directory. Nothing of the machine's own MariaDB is used or touched.
#
#   eval "$(scripts/replica-pair.sh start)"   # prints the variables below as `export` lines
#   scripts/replica-pair.sh stop               # stops both servers, removes the directory
#
#   TEST_REPLICA_PRIMARY_URL  root (no password) on the primary, e.g. mysql://root@127.0.0.1:3307
#   TEST_REPLICA_URL          root on the replica, which replicates everything of the primary
#   REPLICA_PAIR_DIR          the temporary directory (stop reads it)
#
# The primary writes a row-based binary log (--log-bin --binlog-format=ROW, server id 1); the
# replica (server id 2) follows it from its first position, so a database, table or user made on
# the primary appears on the replica. One data directory is initialised with mariadb-install-db
# (root with an empty password, --auth-root-authentication-method=normal) and copied for the
# replica, so both start from the same state; the servers run with small InnoDB files and
# without fsync per commit: start-up takes about 4 s, almost all of it mariadb-install-db.
#
# Exit status of start: 0 started; 3 no MariaDB server on this machine (the caller skips the
# test, saying so); anything else a failure, with the servers' log on stderr.
#   REPLICA_PAIR_PORT  first port tried (default 3307); the two lowest free ones from it are used
#   MARIADBD           the server binary (default: mariadbd on PATH, else /usr/sbin/mariadbd)
set -euo pipefail

say() { echo "replica-pair: $*" >&2; }

find_program() { # names...
  local name
  for name in "$@"; do
    if command -v "$name" > /dev/null 2>&1; then
      command -v "$name"
      return 0
    fi
    if [ -x "/usr/sbin/$name" ]; then
      echo "/usr/sbin/$name"
      return 0
    fi
  done
  return 1
}

port_in_use() { # port
  (exec 3<> "/dev/tcp/127.0.0.1/$1") 2> /dev/null
}

start() {
  local server install client admin
  server=${MARIADBD:-$(find_program mariadbd mysqld || true)}
  install=$(find_program mariadb-install-db mysql_install_db || true)
  client=$(find_program mariadb mysql || true)
  admin=$(find_program mariadb-admin mysqladmin || true)
  if [ -z "$server" ] || [ ! -x "$server" ] || [ -z "$install" ] || [ -z "$client" ] ||
    [ -z "$admin" ]; then
    say "no MariaDB server here (mariadbd, mariadb-install-db and the mariadb client are needed)"
    return 3
  fi

  local dir
  dir=$(mktemp -d "${TMPDIR:-/tmp}/wps-replica-pair.XXXXXX")
  local ports=() port=${REPLICA_PAIR_PORT:-3307}
  while [ "${#ports[@]}" -lt 2 ]; do
    if [ "$port" -gt 65535 ]; then
      say "no free port from ${REPLICA_PAIR_PORT:-3307}"
      return 1
    fi
    if ! port_in_use "$port"; then ports+=("$port"); fi
    port=$((port + 1))
  done
  local primary_port=${ports[0]} replica_port=${ports[1]}

  # Small files and no fsync per commit: a test pair, started in seconds, thrown away after.
  local innodb=(--innodb-log-file-size=8M --innodb-buffer-pool-size=64M
    --innodb-flush-log-at-trx-commit=0 --innodb-doublewrite=0)
  local as_root=()
  if [ "$(id -u)" = 0 ]; then as_root=(--user=root); fi

  if ! "$install" --no-defaults "${as_root[@]}" --datadir="$dir/primary" \
    --auth-root-authentication-method=normal --skip-test-db "${innodb[@]}" \
    > "$dir/install.log" 2>&1; then
    cat "$dir/install.log" >&2
    say "mariadb-install-db failed"
    return 1
  fi
  cp -a "$dir/primary" "$dir/replica"

  run_server() { # name, port, options...
    local name=$1 port=$2
    shift 2
    "$server" --no-defaults "${as_root[@]}" --datadir="$dir/$name" --port="$port" \
      --bind-address=127.0.0.1 --socket="$dir/$name.sock" --pid-file="$dir/$name.pid" \
      --log-error="$dir/$name.err" --character-set-server=utf8mb4 \
      --collation-server=utf8mb4_unicode_ci "${innodb[@]}" "$@" > /dev/null 2>&1 < /dev/null &
    # Its process id now, for stop, which must not depend on the server having written its
    # pid file (one that failed to start may not have).
    echo $! > "$dir/$name.process"
  }
  run_server primary "$primary_port" --server-id=1 --log-bin="$dir/primary-bin" \
    --binlog-format=ROW
  run_server replica "$replica_port" --server-id=2

  local ready=0
  for _ in $(seq 1 150); do
    if "$admin" --no-defaults -uroot -h127.0.0.1 -P"$primary_port" ping > /dev/null 2>&1 &&
      "$admin" --no-defaults -uroot -h127.0.0.1 -P"$replica_port" ping > /dev/null 2>&1; then
      ready=1
      break
    fi
    sleep 0.1
  done
  if [ "$ready" != 1 ]; then
    tail -n 20 "$dir"/primary.err "$dir"/replica.err >&2 || true
    say "the servers did not answer within 15 s"
    stop_dir "$dir"
    return 1
  fi

  # The replica follows the primary's binary log from where it is now (nothing has been written).
  local status file position
  status=$("$client" --no-defaults -uroot -h127.0.0.1 -P"$primary_port" -N -e 'SHOW MASTER STATUS')
  file=$(echo "$status" | awk '{print $1}')
  position=$(echo "$status" | awk '{print $2}')
  "$client" --no-defaults -uroot -h127.0.0.1 -P"$replica_port" -e "
    CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT=$primary_port, MASTER_USER='root',
      MASTER_PASSWORD='', MASTER_LOG_FILE='$file', MASTER_LOG_POS=$position,
      MASTER_CONNECT_RETRY=1;
    START SLAVE;"

  say "primary on port $primary_port, replica on port $replica_port, data in $dir"
  echo "export TEST_REPLICA_PRIMARY_URL=mysql://root@127.0.0.1:$primary_port"
  echo "export TEST_REPLICA_URL=mysql://root@127.0.0.1:$replica_port"
  echo "export REPLICA_PAIR_DIR=$dir"
}

stop_dir() { # directory
  local dir=$1 name pids=() pid
  for name in replica primary; do
    if [ -f "$dir/$name.process" ]; then pids+=("$(cat "$dir/$name.process")"); fi
  done
  if [ "${#pids[@]}" -gt 0 ]; then
    kill "${pids[@]}" 2> /dev/null || true
    # A clean shutdown takes a second or two; one that hangs is killed after 10 s.
    for _ in $(seq 1 100); do
      local alive=0
      for pid in "${pids[@]}"; do
        if kill -0 "$pid" 2> /dev/null; then alive=1; fi
      done
      if [ "$alive" = 0 ]; then break; fi
      sleep 0.1
    done
    for pid in "${pids[@]}"; do
      if kill -0 "$pid" 2> /dev/null; then kill -9 "$pid" 2> /dev/null || true; fi
    done
  fi
  rm -rf "$dir"
}

case "${1:-}" in
  start) start ;;
  stop)
    if [ -z "${REPLICA_PAIR_DIR:-}" ]; then
      say "REPLICA_PAIR_DIR is not set: nothing to stop"
      exit 0
    fi
    case "$REPLICA_PAIR_DIR" in
      */wps-replica-pair.*) stop_dir "$REPLICA_PAIR_DIR" ;;
      *)
        say "REPLICA_PAIR_DIR=$REPLICA_PAIR_DIR is not a directory this script made"
        exit 1
        ;;
    esac
    ;;
  *)
    echo "usage: $0 start|stop" >&2
    exit 2
    ;;
esac
