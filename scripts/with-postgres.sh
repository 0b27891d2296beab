#!/usr/bin/env bash
# Run a command with a throwaway PostgreSQL server, its URL in TEST_POSTGRES_URL.
#
#   scripts/with-postgres.sh make test
#
# The server runs as a non-root user, listens only on a socket in a temporary folder, keeps
# its data there, and is stopped (the folder removed) when the command ends. Debian's
# `postgresql` package is installed when initdb is missing and we are root. Without
# PostgreSQL the command runs anyway: the PostgreSQL tests are then skipped with a notice
# (and fail when CI is set). TEST_POSTGRES_URL already set: the command runs against it.
# POSTGRES_OPTIONS adds server settings (`-c name=value ...`).
set -euo pipefail

if [ -n "${TEST_POSTGRES_URL:-}" ]; then
	exec "$@"
fi

find_bin() {
	local found
	found=$(command -v initdb 2>/dev/null || true)
	if [ -z "$found" ]; then
		found=$(ls -d /usr/lib/postgresql/*/bin/initdb 2>/dev/null | sort -V | tail -n 1 || true)
	fi
	[ -n "$found" ] && dirname "$(readlink -f "$found")"
}

bin=$(find_bin || true)
if [ -z "$bin" ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
	echo "Installing postgresql for the PostgreSQL tests..."
	export DEBIAN_FRONTEND=noninteractive
	{ apt-get update -qq >/dev/null && apt-get install -y -qq postgresql >/dev/null; } \
		|| echo "warning: could not install postgresql; PostgreSQL tests may be skipped" >&2
	bin=$(find_bin || true)
fi
if [ -z "$bin" ]; then
	echo "note: PostgreSQL (initdb) not found; PostgreSQL tests may be skipped" >&2
	exec "$@"
fi

folder=$(mktemp -d "${TMPDIR:-/tmp}/crownkeeper-pg.XXXXXX")
as_owner=()
if [ "$(id -u)" = 0 ]; then
	# PostgreSQL refuses to run as root.
	chown nobody "$folder"
	as_owner=(runuser -u nobody --)
fi

stop() {
	"${as_owner[@]}" "$bin/pg_ctl" -D "$folder/data" -m immediate -w stop >/dev/null 2>&1 || true
	rm -rf "$folder"
}
trap stop EXIT
# Stopped by a signal: exit, so the EXIT trap stops the server too.
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM

"${as_owner[@]}" "$bin/initdb" -D "$folder/data" -U crownkeeper --auth=trust \
	--encoding=UTF8 --no-sync >"$folder/initdb.log" 2>&1 \
	|| { cat "$folder/initdb.log" >&2; exit 1; }
# Throwaway data: durability off makes creating a database per test cheap.
"${as_owner[@]}" "$bin/pg_ctl" -D "$folder/data" -l "$folder/server.log" -w -t 30 \
	-o "-c listen_addresses='' -c unix_socket_directories='$folder' -c max_connections=300 \
	    -c fsync=off -c synchronous_commit=off -c full_page_writes=off ${POSTGRES_OPTIONS:-}" \
	start >/dev/null || { cat "$folder/server.log" >&2; exit 1; }

export TEST_POSTGRES_URL="postgresql+psycopg://crownkeeper@/postgres?host=$folder"
echo "PostgreSQL $("$bin/postgres" --version | awk '{print $3}') for the tests at $folder"
"$@"
