#!/bin/sh
# `postgres ARGS`: on an empty data directory, initdb and create POSTGRES_USER (password
# POSTGRES_PASSWORD, scram-sha-256 over the network) and POSTGRES_DB, as the official image does; then run
# the server on every interface.
set -e
if [ "$1" = postgres ]; then
  user="${POSTGRES_USER:-postgres}"
  db="${POSTGRES_DB:-$user}"
  if [ ! -s "$PGDATA/PG_VERSION" ]; then
    [ -n "${POSTGRES_PASSWORD:-}" ] || { echo "POSTGRES_PASSWORD is not set" >&2; exit 1; }
    pwfile="$(mktemp)"
    printf '%s\n' "$POSTGRES_PASSWORD" >"$pwfile"
    initdb --username="$user" --pwfile="$pwfile" --auth-local=trust --auth-host=scram-sha-256 \
      --encoding=UTF8 -D "$PGDATA" >/dev/null
    rm -f "$pwfile"
    echo "host all all all scram-sha-256" >>"$PGDATA/pg_hba.conf"
    pg_ctl -D "$PGDATA" -o "-c listen_addresses=''" -w start >/dev/null
    if [ "$db" != postgres ]; then
      createdb --username="$user" "$db"
    fi
    pg_ctl -D "$PGDATA" -m fast -w stop >/dev/null
  fi
  shift
  set -- postgres -c listen_addresses='*' "$@"
fi
exec "$@"
