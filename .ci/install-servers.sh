#!/usr/bin/env bash
# Installs the database servers the store tests start themselves (redis-server, PostgreSQL), and
# Debian's Chromium, which the studio's tests drive headless.
# Idempotent: apt runs only when a binary is missing. Debian puts the PostgreSQL binaries in
# /usr/lib/postgresql/<version>/bin, off PATH; tests/support/servers.ts looks there too.
set -euo pipefail

have_postgres() {
  command -v postgres >/dev/null 2>&1 && command -v initdb >/dev/null 2>&1 && return 0
  compgen -G '/usr/lib/postgresql/*/bin/postgres' >/dev/null 2>&1
}

missing=()
command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
have_postgres || missing+=(postgresql)
command -v chromium >/dev/null 2>&1 || missing+=(chromium)

if [ ${#missing[@]} -gt 0 ]; then
  SUDO=''
  [ "$(id -u)" -ne 0 ] && SUDO='sudo'
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
  # The packages start system-wide services; the tests run their own servers on free ports.
  if command -v service >/dev/null 2>&1; then
    $SUDO service redis-server stop >/dev/null 2>&1 || true
    $SUDO service postgresql stop >/dev/null 2>&1 || true
  fi
fi

redis-server --version
pg_bin=$(command -v postgres || ls -d /usr/lib/postgresql/*/bin/postgres | sort -V | tail -n1)
"$pg_bin" --version
