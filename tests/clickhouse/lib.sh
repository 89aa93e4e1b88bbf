# SPDX-License-Identifier: MIT
# lib.sh - start and stop ClickHouse servers (and a ZooKeeper) on loopback
# for the fleet tests; sourced by fleet_test.sh, cluster_test.sh and
# testdata/clickhouse/make_rows.sh.
#
#   ch_init NAME          a scratch folder ($CH_WORK) and a cleanup trap;
#                         exits 77 (skipped) without clickhouse-server,
#                         its Debian config or curl
#   zk_start              a standalone ZooKeeper; sets ZK_PORT
#   ch_ports NAME         reserve free ports for server NAME:
#                         CH_HTTP[NAME], CH_TCP[NAME], CH_INTER[NAME]
#   ch_start NAME [XML]   start server NAME (ports reserved first, or now)
#                         with XML (the inside of <yandex>) as an extra
#                         config file; waits until it answers
#   chq NAME SQL          run SQL on NAME over HTTP; its output on stdout
#   ch_fail MESSAGE       print "$CH_NAME: FAIL: MESSAGE", exit 1
#
# Every server and the ZooKeeper are stopped and the scratch folder removed
# at exit, whatever happens. Each server has its own data, logs and
# config folder (a copy of /etc/clickhouse-server with config.d/ added),
# and listens on 127.0.0.1 only.

CH_CONFIG=/etc/clickhouse-server
declare -A CH_HTTP CH_TCP CH_INTER CH_PID
ZK_PID=
ZK_PORT=

ch_fail() {
    echo "$CH_NAME: FAIL: $*" >&2
    exit 1
}

ch_skip() {
    echo "$CH_NAME: skipped: $1 (make test installs clickhouse-server)"
    exit 77
}

# stop PID: TERM, up to 10 s, then KILL.
ch_stop_pid() {
    local pid=$1
    kill -0 "$pid" 2>/dev/null || return 0
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 100); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    kill -9 "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
}

ch_cleanup() {
    local name
    for name in "${!CH_PID[@]}"; do
        ch_stop_pid "${CH_PID[$name]}"
    done
    [ -z "$ZK_PID" ] || ch_stop_pid "$ZK_PID"
    rm -rf "$CH_WORK"
}

ch_init() {
    CH_NAME=$1
    command -v clickhouse-server >/dev/null 2>&1 ||
        ch_skip "clickhouse-server is not installed"
    [ -r "$CH_CONFIG/config.xml" ] || ch_skip "no $CH_CONFIG/config.xml"
    command -v curl >/dev/null 2>&1 || ch_skip "curl is not installed"
    CH_WORK=$(mktemp -d "${TMPDIR:-/tmp}/tachyon-clickhouse.XXXXXX")
    trap ch_cleanup EXIT
    trap 'exit 2' INT TERM
}

# free_ports N: N free TCP ports on loopback, one per line. The sockets
# are closed before the servers bind them; a clash is unlikely and fails
# loudly (the server exits).
ch_free_ports() {
    python3 -c '
import socket, sys
socks = [socket.socket() for _ in range(int(sys.argv[1]))]
for s in socks:
    s.bind(("127.0.0.1", 0))
print("\n".join(str(s.getsockname()[1]) for s in socks))' "$1"
}

ch_ports() {
    local name=$1 ports
    [ -n "${CH_HTTP[$name]:-}" ] && return 0
    mapfile -t ports < <(ch_free_ports 3)
    CH_HTTP[$name]=${ports[0]}
    CH_TCP[$name]=${ports[1]}
    CH_INTER[$name]=${ports[2]}
}

# ping_wait URL PID WHAT LOG...: wait up to 30 s for URL to answer.
ch_wait() {
    local url=$1 pid=$2 what=$3
    shift 3
    for _ in $(seq 1 150); do
        curl -sf "$url" >/dev/null 2>&1 && return 0
        kill -0 "$pid" 2>/dev/null ||
            ch_fail "$what exited: $(tail -5 "$@" 2>/dev/null)"
        sleep 0.2
    done
    ch_fail "$what did not answer"
}

ch_start() {
    local name=$1 extra=${2:-} dir
    ch_ports "$name"
    dir=$CH_WORK/$name
    mkdir -p "$dir/conf/config.d" "$dir/data"
    cp "$CH_CONFIG/config.xml" "$CH_CONFIG/users.xml" "$dir/conf/"
    if [ -n "$extra" ]; then
        printf '<?xml version="1.0"?>\n<yandex>\n%s\n</yandex>\n' "$extra" \
            >"$dir/conf/config.d/tachyon.xml"
    fi
    clickhouse-server --config-file="$dir/conf/config.xml" -- \
        --path="$dir/data/" --tmp_path="$dir/data/tmp/" \
        --user_files_path="$dir/data/user_files/" \
        --format_schema_path="$dir/data/format_schemas/" \
        --logger.log="$dir/server.log" --logger.errorlog="$dir/server.err.log" \
        --listen_host=127.0.0.1 --http_port="${CH_HTTP[$name]}" \
        --tcp_port="${CH_TCP[$name]}" \
        --interserver_http_port="${CH_INTER[$name]}" \
        --interserver_http_host=127.0.0.1 \
        >"$dir/server.out" 2>&1 &
    CH_PID[$name]=$!
    ch_wait "http://127.0.0.1:${CH_HTTP[$name]}/ping" "${CH_PID[$name]}" \
        "clickhouse-server $name" "$dir/server.err.log" "$dir/server.out"
}

chq() {
    local name=$1 sql=$2 code out
    out=$CH_WORK/q.$name.out
    code=$(curl -sS -o "$out" -w '%{http_code}' --data-binary "$sql" \
           "http://127.0.0.1:${CH_HTTP[$name]}/")
    [ "$code" = 200 ] || ch_fail "query on $name failed ($code): $(cat "$out")"
    cat "$out"
}

# A standalone ZooKeeper (Debian's zookeeper package) in the scratch folder.
zk_start() {
    local jar=/usr/share/java/zookeeper.jar dir=$CH_WORK/zookeeper
    [ -r "$jar" ] && command -v java >/dev/null 2>&1 || return 1
    ZK_PORT=$(ch_free_ports 1)
    mkdir -p "$dir/data"
    cat >"$dir/zoo.cfg" <<EOF
tickTime=2000
initLimit=10
syncLimit=5
dataDir=$dir/data
clientPort=$ZK_PORT
clientPortAddress=127.0.0.1
admin.enableServer=false
4lw.commands.whitelist=ruok
EOF
    java -cp "/etc/zookeeper/conf:$jar" -Dzookeeper.log.dir="$dir" \
        org.apache.zookeeper.server.quorum.QuorumPeerMain "$dir/zoo.cfg" \
        >"$dir/out.log" 2>&1 &
    ZK_PID=$!
    for _ in $(seq 1 150); do
        [ "$(python3 -c '
import socket, sys
try:
    s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), 1)
    s.sendall(b"ruok")
    print(s.recv(4).decode())
except OSError:
    pass' "$ZK_PORT")" = imok ] && return 0
        kill -0 "$ZK_PID" 2>/dev/null || return 1
        sleep 0.2
    done
    return 1
}
