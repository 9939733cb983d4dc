#!/usr/bin/env bash
# Start a PostgreSQL server for the tests and benchmarks of this working tree (installing Debian's
# `postgresql` package first if no PostgreSQL is on the machine; that needs root, as CI has).
#
# The server is this tree's own: its data and socket live in /tmp/grognard-postgresql-<id> (one
# per working tree), it listens on that Unix socket only (no TCP port), trusts local connections,
# and holds the database `grognard_test`. Its URL is written to .grognard-postgresql-url at the
# top of the tree, where the tests read it (or set GROGNARD_TEST_POSTGRESQL yourself).
#
#   bash scripts/start-postgresql.sh        # start (does nothing if it runs already)
#   bash scripts/start-postgresql.sh stop   # stop it
set -euo pipefail
cd "$(dirname "$0")/.."
top=$(pwd)
id=$(printf '%s' "$top" | sha1sum | cut -c1-10)
dir=${GROGNARD_PG_DIR:-/tmp/grognard-postgresql-$id}
url_file="$top/.grognard-postgresql-url"

find_bin() {
  local d
  d=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
  if [ -n "$d" ] && [ -x "$d/pg_ctl" ]; then echo "$d"; fi
}

bin=$(find_bin)
if [ -z "$bin" ]; then
  if [ "$(id -u)" != 0 ]; then
    echo "start-postgresql: no PostgreSQL found; install Debian's postgresql package (as root)" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq postgresql >/dev/null
  bin=$(find_bin)
fi

# PostgreSQL refuses to run as root: as root, run it as the package's `postgres` user.
as_pg() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

if [ "${1:-start}" = stop ]; then
  if [ -f "$dir/data/postmaster.pid" ]; then as_pg "$bin/pg_ctl" -D "$dir/data" -m fast stop; fi
  rm -f "$url_file"
  exit 0
fi

mkdir -p "$dir"
chmod 0700 "$dir"
if [ "$(id -u)" = 0 ]; then chown postgres: "$dir"; fi
if [ ! -f "$dir/data/PG_VERSION" ]; then
  as_pg "$bin/initdb" -D "$dir/data" -U grognard -A trust -E UTF8 --locale=C.UTF-8 >"$dir/initdb.log"
fi
if ! as_pg "$bin/pg_ctl" -D "$dir/data" status >/dev/null 2>&1; then
  as_pg "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 start \
    -o "-c listen_addresses='' -c unix_socket_directories='$dir' -c max_connections=300" >/dev/null
fi
psql=("$bin/psql" -X -q -h "$dir" -U grognard -d postgres)
if [ -z "$(as_pg "${psql[@]}" -tAc "SELECT 1 FROM pg_database WHERE datname = 'grognard_test'")" ]; then
  as_pg "${psql[@]}" -c "CREATE DATABASE grognard_test"
fi
url="postgresql://grognard@/grognard_test?host=$dir"
printf '%s\n' "$url" >"$url_file"
echo "PostgreSQL $("$bin/postgres" --version | awk '{print $3}') running: $url"
