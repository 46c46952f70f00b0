#!/usr/bin/env bash
# Runs a command with TEST_DATABASE_URL pointing at a throwaway PostgreSQL cluster on a loopback port.
# Usage: scripts/with-postgres.sh npm test
set -euo pipefail

PGBIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
if [ -z "$PGBIN" ] || [ ! -x "$PGBIN/initdb" ]; then
  if [ "$(id -u)" = 0 ]; then
    echo "== installing postgresql" >&2
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
    PGBIN=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
  else
    echo "PostgreSQL is not installed (apt-get install postgresql)" >&2
    exit 1
  fi
fi

PORT=${PGPORT_TEST:-54329}
DIR=$(mktemp -d /tmp/roster-pg.XXXXXX)
AS=()
# initdb refuses to run as root: run the cluster as the postgres user.
if [ "$(id -u)" = 0 ]; then
  chown postgres "$DIR"
  AS=(runuser -u postgres --)
fi
"${AS[@]}" "$PGBIN/initdb" -D "$DIR/data" -U roster --auth=trust -E UTF8 --no-locale >/dev/null
"${AS[@]}" "$PGBIN/pg_ctl" -D "$DIR/data" -l "$DIR/log" -w \
  -o "-p $PORT -k $DIR -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=300" start >/dev/null
stop() { "${AS[@]}" "$PGBIN/pg_ctl" -D "$DIR/data" -m immediate stop >/dev/null 2>&1 || true; rm -rf "$DIR"; }
trap stop EXIT

export TEST_DATABASE_URL="postgres://roster@127.0.0.1:$PORT/postgres"
echo "== PostgreSQL $("$PGBIN/postgres" --version | awk '{print $3}') on 127.0.0.1:$PORT" >&2
"$@"
