#!/usr/bin/env bash
# A local Redis Cluster for development and CI: 3 masters + 4 replicas on loopback, run from the machine's
# own redis-server (no container engine needed). Called as `scripts/infra.sh cluster up|down|status`.
# Survives the loss of any one node with writes still confirmed under REDIS_WAIT_REPLICAS=1: one master
# has two replicas, and when a master dies its promoted replica (left without a replica of its own) gets
# that spare by replica migration (cluster-migration-barrier 1) a few seconds later.
#   up      idempotent: a whole cluster is left alone; stopped nodes are restarted from their append-only
#           files and nodes.conf (they rejoin, a former master as a replica); a cluster that does not become
#           whole again (data of a node lost, stale node ids) is recreated from scratch; a whole cluster of
#           the former six nodes gets the seventh added as a replica. Ends when every node reports
#           cluster_state:ok and every master has an attached replica.
#   down    stops this checkout's nodes on these seven ports and removes their data (other ports' clusters stay).
#   status  each node: role, slots or master, pid, and whose checkout started it; exit 1 if not whole.
# Env: INFRA_DIR (default <repo>/.infra; nodes live in $INFRA_DIR/redis-cluster/<port>/),
#      REDIS_CLUSTER_PORT (7101: first of seven consecutive ports), REDIS_CLUSTER_NODE_TIMEOUT_MS (2000:
#      short, so a killed master's replica is promoted within seconds in tests; Redis's default is 15000).
# Clients: REDIS_CLUSTER_NODES=127.0.0.1:7101,127.0.0.1:7102,127.0.0.1:7103 (any reachable nodes seed).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
infra="${INFRA_DIR:-$root/.infra}"
first_port="${REDIS_CLUSTER_PORT:-7101}"
node_timeout="${REDIS_CLUSTER_NODE_TIMEOUT_MS:-2000}"
cdir="$infra/redis-cluster"
masters_wanted=3
replicas_wanted=4
ports=()
for ((i = 0; i < masters_wanted + replicas_wanted; i++)); do ports+=($((first_port + i))); done
last_port="${ports[${#ports[@]} - 1]}"

say() { printf '[infra] redis-cluster: %s\n' "$*"; }
port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
# Bounded: a node that hangs (stopped, overloaded) must not hang the script.
rcli() { local p=$1; shift; timeout 3 redis-cli -h 127.0.0.1 -p "$p" "$@" 2>/dev/null; }
answers() { rcli "$1" ping | grep -q PONG; }
# One field of an INFO section, e.g. info_field 7101 replication role
info_field() { rcli "$1" info "$2" | tr -d '\r' | sed -n "s/^$3://p"; }
node_dir() { rcli "$1" config get dir | sed -n 2p; }
# The working directory of the process answering on a port: redis-server works in its data directory.
# Read from /proc, so it answers also when CONFIG GET dir cannot (getcwd fails once the directory was
# removed under the process: readlink then ends in " (deleted)").
node_cwd() { local pid; pid="$(info_field "$1" server process_id)"; [ -n "$pid" ] && readlink "/proc/$pid/cwd" 2>/dev/null; }
# Where a running node keeps its data, as far as this machine can tell.
node_home() { local d; d="$(node_dir "$1")"; [ -n "$d" ] || { d="$(node_cwd "$1")"; d="${d% (deleted)}"; }; echo "$d"; }
# Whose checkout a running node belongs to: recorded in its data directory when this script started it.
node_owner() { local d; d="$(node_home "$1")"; { [ -n "$d" ] && cat "$d/owner" 2>/dev/null; } || echo "unknown (dir ${d:-unknown})"; }
ours() { [ "$(node_home "$1")" = "$cdir/$1" ]; }
# A running node whose data directory was removed: it can no longer save nodes.conf (Redis exits when a
# cluster config change cannot be saved) nor rewrite its append-only file.
lost_dir() { [[ "$(node_cwd "$1")" == *" (deleted)" ]]; }
seeds() { local IFS=,; echo "${ports[*]/#/127.0.0.1:}"; }

# The pid of this checkout's node on a port, if that process is alive (a stale pid file after kill -9 is not).
node_pid() {
  local f="$cdir/$1/redis.pid" pid=""
  [ -f "$f" ] && pid="$(cat "$f")"
  # no pid file (its directory was removed under it): the process answering on the port, if it is ours
  [ -n "$pid" ] || { ! ours "$1" || pid="$(info_field "$1" server process_id)"; }
  [ -n "$pid" ] && [ -d "/proc/$pid" ] && grep -q "redis-server" "/proc/$pid/cmdline" 2>/dev/null && echo "$pid"
}

ensure_binaries() {
  command -v redis-server >/dev/null && command -v redis-cli >/dev/null && return
  if command -v apt-get >/dev/null; then
    local sudo=""
    [ "$(id -u)" = 0 ] || sudo="sudo -n"
    say "redis-server not found: installing the Debian package (apt-get install redis-server)"
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends redis-server >/dev/null 2>&1 ||
      { $sudo apt-get update -qq >/dev/null 2>&1 &&
        $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends redis-server >/dev/null 2>&1; } || true
  fi
  command -v redis-server >/dev/null && command -v redis-cli >/dev/null && return
  say "redis-server/redis-cli not found and could not be installed: install the Debian package redis-server"
  say "(apt-get install redis-server), or use Docker: docker compose --profile cluster up -d"
  return 1
}

start_node() {
  local p=$1 d="$cdir/$1"
  mkdir -p "$d"
  echo "$root" > "$d/owner"
  rm -f "$d/redis.pid"
  # Append-only file, fsync every second, as the single-node Redis in docker-compose.yml. noeviction: the
  # hold store must never lose a key to memory pressure. cluster-replica-validity-factor 0: a replica may
  # always take over, however long its link was down (a test kills masters on a busy 2-core machine).
  # repl-diskless-sync-delay 0: a (re)joining replica is synced at once instead of after 5 s.
  # Replica migration (Redis's defaults, stated): a master left without replicas gets one from a master
  # that has more than one.
  redis-server --port "$p" --bind 127.0.0.1 --daemonize yes --dir "$d" \
    --pidfile "$d/redis.pid" --logfile "$d/redis.log" \
    --cluster-enabled yes --cluster-config-file nodes.conf --cluster-node-timeout "$node_timeout" \
    --cluster-replica-validity-factor 0 --repl-diskless-sync-delay 0 \
    --cluster-allow-replica-migration yes --cluster-migration-barrier 1 \
    --appendonly yes --appendfsync everysec --save "" --maxmemory-policy noeviction 9>&- # not the lock
}

# Only ever called where the node's data is thrown away next (down, recreate), so no graceful shutdown:
# SIGTERM would make a master wait up to shutdown-timeout (10 s) for its replicas.
stop_node() {
  local p=$1 pid
  pid="$(node_pid "$p" || true)"
  [ -n "$pid" ] || return 0
  kill -9 "$pid" 2>/dev/null || true
  for _ in $(seq 1 50); do
    [[ "$(ps -o stat= -p "$pid" 2>/dev/null || true)" =~ ^(Z|$) ]] && return 0
    sleep 0.1
  done
}

# Why the cluster is not whole, or nothing when it is: every node answers and says cluster_state:ok and
# knows exactly the seven nodes, three masters serve all slots, each with a replica whose link is up.
not_whole() {
  local p masters=0 replicas=0 info n
  for p in "${ports[@]}"; do
    info="$(rcli "$p" cluster info | tr -d '\r')" || { echo "127.0.0.1:$p does not answer"; return; }
    grep -q '^cluster_state:ok' <<<"$info" || { echo "127.0.0.1:$p: cluster_state is not ok"; return; }
    grep -q "^cluster_known_nodes:${#ports[@]}\$" <<<"$info" ||
      { echo "127.0.0.1:$p knows $(sed -n 's/^cluster_known_nodes://p' <<<"$info") nodes, not ${#ports[@]}"; return; }
    grep -q '^cluster_slots_assigned:16384$' <<<"$info" || { echo "127.0.0.1:$p: slots not all assigned"; return; }
    case "$(info_field "$p" replication role)" in
      master)
        n="$(info_field "$p" replication connected_slaves)"
        (( ${n:-0} >= 1 )) || { echo "127.0.0.1:$p: master without an attached replica"; return; }
        masters=$((masters + 1)) ;;
      slave)
        [ "$(info_field "$p" replication master_link_status)" = up ] || { echo "127.0.0.1:$p: replica link is down"; return; }
        replicas=$((replicas + 1)) ;;
    esac
  done
  (( masters == masters_wanted && replicas == replicas_wanted )) ||
    echo "$masters masters and $replicas replicas, not $masters_wanted and $replicas_wanted"
}

wait_whole() { # seconds
  local deadline=$((SECONDS + $1)) why
  while :; do
    why="$(not_whole)"
    [ -z "$why" ] && return 0
    (( SECONDS < deadline )) || { echo "$why"; return 1; }
    sleep 0.2
  done
}

# A node that has never joined a cluster: it knows only itself and serves no slot.
fresh() { rcli "$1" cluster info | tr -d '\r' | grep -q '^cluster_known_nodes:1$'; }

create() {
  say "creating the cluster ($masters_wanted masters + $replicas_wanted replicas, cluster-node-timeout ${node_timeout} ms)"
  local args=() p
  for p in "${ports[@]}"; do args+=("127.0.0.1:$p"); done
  if ! timeout 60 redis-cli --cluster create "${args[@]}" --cluster-replicas 1 --cluster-yes > "$cdir/create.log" 2>&1; then
    say "redis-cli --cluster create failed:"; tail -n 20 "$cdir/create.log"; return 1
  fi
}

start_missing() {
  local p
  for p in "${ports[@]}"; do
    answers "$p" && continue
    stop_node "$p" # a hung node of ours (it would keep the port)
    port_open "$p" && { say "port $p is taken by something that is not answering as Redis (choose REDIS_CLUSTER_PORT)"; return 1; }
    start_node "$p"
  done
  for p in "${ports[@]}"; do
    for _ in $(seq 1 100); do answers "$p" && break; sleep 0.1; done
    answers "$p" || { say "node 127.0.0.1:$p did not start (log: $cdir/$p/redis.log)"; tail -n 5 "$cdir/$p/redis.log" 2>/dev/null; return 1; }
  done
}

# A cluster made before it had a spare replica: its nodes are whole among themselves and only the new
# ports are fresh. Each fresh node joins as a replica (of the master with the fewest), no data is lost.
grow() {
  local p seed="" known=0 fresh_ports=()
  for p in "${ports[@]}"; do
    if fresh "$p"; then fresh_ports+=("$p"); else known=$((known + 1)); seed="${seed:-$p}"; fi
  done
  [ -n "$seed" ] || return 1
  local info; info="$(rcli "$seed" cluster info | tr -d '\r')"
  grep -q '^cluster_state:ok' <<<"$info" && grep -q "^cluster_known_nodes:${known}\$" <<<"$info" &&
    grep -q '^cluster_slots_assigned:16384$' <<<"$info" || return 1
  for p in "${fresh_ports[@]}"; do
    say "adding 127.0.0.1:$p to the cluster as a replica"
    timeout 60 redis-cli --cluster add-node "127.0.0.1:$p" "127.0.0.1:$seed" --cluster-slave \
      > "$cdir/add-node.log" 2>&1 || { say "add-node failed:"; tail -n 10 "$cdir/add-node.log"; return 1; }
  done
}

recreate() {
  say "recreating it from scratch (its data is lost)"
  local p
  for p in "${ports[@]}"; do stop_node "$p"; rm -rf "${cdir:?}/$p"; done # only our ports: $cdir holds other ports' clusters too
  start_missing
  create
}

cluster_up() {
  local t0=$SECONDS p foreign=0 why
  ensure_binaries
  for p in "${ports[@]}"; do
    answers "$p" || continue
    [ "$(info_field "$p" cluster cluster_enabled)" = 1 ] ||
      { say "127.0.0.1:$p is a Redis without cluster mode (choose another REDIS_CLUSTER_PORT)"; return 1; }
    ours "$p" || foreign=$((foreign + 1))
  done
  if (( foreign > 0 )); then
    # Another checkout's cluster: use it if it is whole, never restart or wipe someone else's nodes.
    why="$(not_whole)"
    if [ -z "$why" ]; then
      say "up, started by checkout $(node_owner "${ports[0]}") (not this one); using it: REDIS_CLUSTER_NODES=$(seeds)"
      return 0
    fi
    say "ports ${ports[0]}-$last_port are used by another checkout's cluster ($(node_owner "${ports[0]}")), which is not whole: $why"
    say "stop it there (scripts/infra.sh cluster down), or choose REDIS_CLUSTER_PORT"
    return 1
  fi
  mkdir -p "$cdir"
  for p in "${ports[@]}"; do
    if lost_dir "$p"; then
      say "node 127.0.0.1:$p lost its data directory while running (removed under it)"
      recreate
      break
    fi
  done
  start_missing
  local fresh_count=0
  for p in "${ports[@]}"; do fresh "$p" && fresh_count=$((fresh_count + 1)); done
  if (( fresh_count == ${#ports[@]} )); then
    create
  elif (( fresh_count > 0 )) && grow; then
    :
  elif (( fresh_count > 0 )); then
    say "$fresh_count of the 6 nodes lost their cluster state"
    recreate
  elif ! why="$(wait_whole 20)"; then
    say "not whole 20 s after its nodes were started: $why"
    recreate
  fi
  if ! why="$(wait_whole 60)"; then
    say "did not become whole: $why"; return 1
  fi
  say "up in $((SECONDS - t0)) s: REDIS_CLUSTER_NODES=$(seeds)"
}

cluster_down() {
  local p stopped=0
  for p in "${ports[@]}"; do
    if answers "$p" && ! ours "$p"; then
      say "127.0.0.1:$p belongs to checkout $(node_owner "$p"): left running"
      continue
    fi
    if [ -n "$(node_pid "$p" || true)" ]; then stop_node "$p"; stopped=$((stopped + 1)); fi
    rm -rf "${cdir:?}/$p" # only this cluster's ports: other ports' clusters live beside it
  done
  rmdir "$cdir" 2>/dev/null || true
  say "stopped $stopped nodes of this checkout, removed their data in $cdir/{${ports[0]}..$last_port}"
}

cluster_status() {
  local p role line
  for p in "${ports[@]}"; do
    if ! answers "$p"; then say "127.0.0.1:$p down"; continue; fi
    role="$(info_field "$p" replication role)"
    line="$(rcli "$p" cluster nodes | grep myself || true)"
    if [ "$role" = master ]; then
      role="master  slots $(awk '{ s = ""; for (i = 9; i <= NF; i++) s = s (s ? "," : "") $i; print s ? s : "none" }' <<<"$line")"
    else
      role="replica of $(info_field "$p" replication master_host):$(info_field "$p" replication master_port) (link $(info_field "$p" replication master_link_status))"
    fi
    say "127.0.0.1:$p $role, pid $(info_field "$p" server process_id), checkout $(node_owner "$p")"
  done
  local why; why="$(not_whole)"
  if [ -z "$why" ]; then say "whole: REDIS_CLUSTER_NODES=$(seeds)"; else say "not whole: $why"; return 1; fi
}

# One up/down at a time per checkout: parallel test runs each call `up`, and two creates would clash.
lock() {
  mkdir -p "$infra"
  exec 9>"$infra/redis-cluster.lock"
  flock -w 120 9 || { say "another infra.sh cluster command is still running (lock $infra/redis-cluster.lock)"; exit 1; }
}

case "${1:-}" in
  up) lock; cluster_up ;;
  down) lock; cluster_down ;;
  status) cluster_status ;;
  *) echo "usage: scripts/infra.sh cluster up|down|status" >&2; exit 2 ;;
esac
