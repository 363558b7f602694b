#!/usr/bin/env bash
# A PostgreSQL of its own for the flag server's tests: Debian's package, a data directory under
# /tmp, loopback only, trust authentication (nothing else can reach it).
#
#   source .ci/postgres.sh; postgres_setup    # CI: install, start, export the URL, stop on exit
#   .ci/postgres.sh start | stop | restart | status | url
#
# The state lives in FLAG_SERVER_TEST_POSTGRES_DATA (default /tmp/flag-server-postgres) and the
# port in FLAG_SERVER_TEST_POSTGRES_PORT (default 55432). initdb refuses to run as root, so as
# root the server runs as the `postgres` user the Debian package creates. The tests read
# FLAG_SERVER_TEST_DATABASE_URL, and restart the server with FLAG_SERVER_TEST_POSTGRES_CONTROL
# (this script).

postgres_data="${FLAG_SERVER_TEST_POSTGRES_DATA:-/tmp/flag-server-postgres}"
postgres_port="${FLAG_SERVER_TEST_POSTGRES_PORT:-55432}"

postgres_bin() {
    local bin
    bin="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)"
    if [[ -z "$bin" ]]; then
        echo "postgres.sh: PostgreSQL is not installed (apt-get install -y postgresql)" >&2
        return 1
    fi
    echo "$bin"
}

# Runs a PostgreSQL tool as the owner of the data directory.
postgres_as_owner() {
    if [[ "$(id -u)" == 0 ]]; then
        runuser -u postgres -- "$@"
    else
        "$@"
    fi
}

postgres_install() {
    if ! postgres_bin > /dev/null 2>&1; then
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql > /dev/null
    fi
}

postgres_start() {
    local bin
    bin="$(postgres_bin)" || return 1
    if [[ ! -f "$postgres_data/PG_VERSION" ]]; then
        mkdir -p "$postgres_data"
        if [[ "$(id -u)" == 0 ]]; then chown postgres: "$postgres_data"; fi
        postgres_as_owner "$bin/initdb" -D "$postgres_data" -U postgres --auth=trust --encoding=UTF8 > /dev/null
    fi
    # pg_ctl leaves the server running as a daemon, which would keep every descriptor this script
    # inherited. A test process runs this script while it holds sockets (servers listening, HTTP
    # and PostgreSQL connections): a PostgreSQL holding copies of them kept those connections
    # open after the test closed its end, and a test server shutting down gracefully waited for
    # them forever. So the daemon starts without them.
    (
        postgres_close_inherited_descriptors
        postgres_as_owner "$bin/pg_ctl" -D "$postgres_data" -l "$postgres_data/server.log" -w -t 60 \
            -o "-c listen_addresses=127.0.0.1 -p $postgres_port -k $postgres_data -c max_connections=200 -c fsync=on" start > /dev/null
    )
}

# Closes every open descriptor above standard error, but bash's own (255), in the current shell.
postgres_close_inherited_descriptors() {
    local path fd
    for path in /dev/fd/*; do
        fd="${path##*/}"
        if [[ "$fd" =~ ^[0-9]+$ ]] && (( fd > 2 && fd != 255 )); then
            eval "exec ${fd}>&-" 2> /dev/null || true
        fi
    done
}

postgres_stop() {
    local bin
    bin="$(postgres_bin)" || return 0
    if [[ -f "$postgres_data/postmaster.pid" ]]; then
        postgres_as_owner "$bin/pg_ctl" -D "$postgres_data" -m fast -w stop > /dev/null || true
    fi
}

postgres_url() {
    echo "postgres://postgres@127.0.0.1:$postgres_port/postgres?sslmode=disable"
}

# CI: install, start, export the variables the tests read, and stop when the calling shell exits.
postgres_setup() {
    postgres_install
    postgres_stop
    postgres_start
    trap postgres_stop EXIT
    export FLAG_SERVER_TEST_DATABASE_URL FLAG_SERVER_TEST_POSTGRES_CONTROL
    FLAG_SERVER_TEST_DATABASE_URL="$(postgres_url)"
    FLAG_SERVER_TEST_POSTGRES_CONTROL="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/postgres.sh"
    echo "PostgreSQL on 127.0.0.1:$postgres_port (data in $postgres_data)"
}

if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then
    set -euo pipefail
    case "${1:-}" in
        start) postgres_start ;;
        stop) postgres_stop ;;
        restart) postgres_stop; postgres_start ;;
        status) postgres_as_owner "$(postgres_bin)/pg_ctl" -D "$postgres_data" status ;;
        url) postgres_url ;;
        *) echo "usage: $0 start|stop|restart|status|url" >&2; exit 2 ;;
    esac
fi
