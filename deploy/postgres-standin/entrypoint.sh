#!/bin/sh
# First start: initdb with POSTGRES_USER/POSTGRES_PASSWORD (scram-sha-256 over
# the network), create POSTGRES_DB. Every start: serve on all addresses as the
# postgres user.
set -eu
: "${POSTGRES_PASSWORD:?POSTGRES_PASSWORD is required}"
user="${POSTGRES_USER:-postgres}"
db="${POSTGRES_DB:-$user}"
data="${PGDATA:-/var/lib/postgresql/data}"
as_postgres() { setpriv --reuid=postgres --regid=postgres --init-groups "$@"; }
mkdir -p "$data" /var/run/postgresql
chown postgres:postgres "$data" /var/run/postgresql
chmod 700 "$data"
if [ ! -s "$data/PG_VERSION" ]; then
  pwfile=$(mktemp)
  printf '%s\n' "$POSTGRES_PASSWORD" > "$pwfile"
  chown postgres "$pwfile"
  as_postgres initdb --pgdata="$data" --username="$user" --pwfile="$pwfile" --auth-local=trust --auth-host=scram-sha-256 --encoding=UTF8 >/dev/null
  rm -f "$pwfile"
  echo "host all all all scram-sha-256" >> "$data/pg_hba.conf"
  if [ "$db" != "postgres" ]; then
    # a private socket: nothing (pg_isready included) reaches this first server
    init_socket=$(mktemp -d)
    chown postgres "$init_socket"
    as_postgres pg_ctl -D "$data" -w -o "-c listen_addresses='' -c unix_socket_directories=$init_socket" start >/dev/null
    as_postgres psql -q -v ON_ERROR_STOP=1 -h "$init_socket" -U "$user" -d postgres -c "CREATE DATABASE \"$db\" OWNER \"$user\""
    as_postgres pg_ctl -D "$data" -w -m fast stop >/dev/null
  fi
  echo "postgres-standin: initialised $data (user $user, database $db)"
fi
exec setpriv --reuid=postgres --regid=postgres --init-groups postgres -D "$data" -c listen_addresses='*'
