#!/usr/bin/env bash
# Local infrastructure for machines without a container engine (ours and CI):
#   PostgreSQL 127.0.0.1:5432 and Redis 127.0.0.1:6379 — normally already running; started with the
#   machine's own binaries when they are not; and a real Apache Kafka broker (KRaft, single node) on
#   127.0.0.1:9092, run from its Maven Central jars.
# Usage: scripts/infra.sh up|down|status [postgres|redis|kafka ...]   (default: all three; `up` is idempotent)
#          up      starts what does not answer. A Redis it starts keeps an append-only file (fsync every
#                  second, as docker-compose.yml's Redis) in $INFRA_DIR/redis; a Redis already running is
#                  used as it is, and `up`/`status` say whether it persists and how to turn that on.
#          down    stops the Kafka broker and the Redis this checkout started (never another checkout's, never
#                  a Redis or PostgreSQL the machine runs).
#          status  each service: up or down, and whose it is (this checkout, another checkout, or the machine).
#        scripts/infra.sh logs                    follows the log of the broker on the port (whichever checkout
#                                                 started it), else this checkout's last broker log
#        scripts/infra.sh cluster up|down|status  a local 3-master + 4-replica Redis Cluster on 127.0.0.1:7101-7107
#                                                 (scripts/redis-cluster.sh; independent of the services above)
# Env: INFRA_DIR (default <repo>/.infra), REDIS_PORT (6379), KAFKA_PORT (9092), KAFKA_CONTROLLER_PORT (9093),
#      KAFKA_LIBS (jar dir), KAFKA_BROKERS (if set to a non-local address, Kafka is not started here).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
infra="${INFRA_DIR:-$root/.infra}"
redis_port="${REDIS_PORT:-6379}"
kafka_port="${KAFKA_PORT:-9092}"
controller_port="${KAFKA_CONTROLLER_PORT:-9093}"
kdir="$infra/kafka"
libs="${KAFKA_LIBS:-$kdir/libs}"  # the jars; a private broker (tests) shares the main one's
pidfile="$kdir/kafka.pid"

say() { printf '[infra] %s\n' "$*"; }
port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# ---------------------------------------------------------------- PostgreSQL
pg_up() { pg_isready -h 127.0.0.1 -p 5432 -q 2>/dev/null || port_open 5432; }
ensure_postgres() {
  if pg_up; then say "postgres: up (127.0.0.1:5432)"; return; fi
  if command -v pg_ctlcluster >/dev/null && [ -d /etc/postgresql ]; then
    say "postgres: starting the machine's cluster"
    pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -n1)" main start
  else
    say "postgres: not running and no local cluster to start (set DATABASE_URL, or use docker compose)"; return 1
  fi
  for _ in $(seq 1 60); do pg_up && { say "postgres: up"; return; }; sleep 0.5; done
  say "postgres: did not come up"; return 1
}

# ---------------------------------------------------------------- Redis
rdir="$infra/redis"
rcli() { timeout 3 redis-cli -h 127.0.0.1 -p "$redis_port" "$@" 2>/dev/null; }
redis_up() { rcli ping | grep -q PONG; }
# One CONFIG GET value ("" when CONFIG is refused, as on managed Redis that renames it).
redis_config() { rcli config get "$1" | sed -n 2p; }
# The pid of the Redis this checkout started, if it is alive.
redis_pid() {
  local pid; pid="$(cat "$rdir/redis.pid" 2>/dev/null)" || return 1
  [ -n "$pid" ] && [ -d "/proc/$pid" ] && grep -q redis-server "/proc/$pid/cmdline" 2>/dev/null && echo "$pid"
}

# Whose Redis answers on the port, and whether it keeps an append-only file. Holds, seat locks, fencing
# counters and the SeatExpired outbox live only in Redis: without persistence a restart loses them (the
# holds are gone, and SeatExpired records still in the outbox are never sent).
redis_report() {
  local dir aof whose
  dir="$(redis_config dir)"
  aof="$(redis_config appendonly)"
  if [ "$dir" = "$rdir" ]; then
    whose="started by this checkout (pid $(redis_pid || echo '?'), data $rdir)"
  elif [ -n "$dir" ] && [ -f "$dir/owner" ]; then
    whose="started by checkout $(cat "$dir/owner") (not this one)"
  else
    whose="not started by this script${dir:+ (dir $dir)}"
  fi
  case "$aof" in
    yes) say "redis: up (127.0.0.1:$redis_port), $whose; append-only file on (appendfsync $(redis_config appendfsync))" ;;
    no)
      say "redis: up (127.0.0.1:$redis_port), $whose; append-only file OFF: a restart loses holds and the outbox"
      say "redis:   for AOF: redis-cli -p $redis_port config set appendonly yes (config rewrite keeps it, if it has a"
      say "redis:   config file), or stop it and run scripts/infra.sh up redis (starts one with AOF in $rdir)" ;;
    *) say "redis: up (127.0.0.1:$redis_port), $whose; persistence unknown (CONFIG GET refused)" ;;
  esac
}

ensure_redis() {
  if redis_up; then redis_report; return; fi
  command -v redis-server >/dev/null || { say "redis: not running and redis-server not installed"; return 1; }
  mkdir -p "$rdir"
  echo "$root" > "$rdir/owner"
  say "redis: starting redis-server with an append-only file (data: $rdir)"
  # As docker-compose.yml's Redis: AOF, fsync every second, no RDB snapshots. noeviction: the hold store
  # must never lose a key to memory pressure (/health reports any other policy as degraded).
  redis-server --daemonize yes --bind 127.0.0.1 --port "$redis_port" --dir "$rdir" \
    --pidfile "$rdir/redis.pid" --logfile "$rdir/redis.log" \
    --appendonly yes --appendfsync everysec --save "" --maxmemory-policy noeviction
  for _ in $(seq 1 40); do redis_up && { redis_report; return; }; sleep 0.25; done
  say "redis: did not come up (log: $rdir/redis.log)"; return 1
}

stop_redis() {
  local pid; pid="$(redis_pid || true)"
  if [ -z "$pid" ]; then say "redis: not started by this checkout; left as it is"; return; fi
  kill "$pid" # SIGTERM: Redis fsyncs its append-only file, then exits
  for _ in $(seq 1 100); do [ -d "/proc/$pid" ] || break; sleep 0.1; done
  say "redis: stopped (its data stays in $rdir)"
}

# ---------------------------------------------------------------- Kafka
# The broker's pid, if it is alive (a killed process can linger a moment as a zombie: that is not alive).
kafka_pid() {
  [ -f "$pidfile" ] || return 1
  local pid; pid="$(cat "$pidfile")"
  local state; state="$(ps -o stat= -p "$pid" 2>/dev/null || true)"
  [ -n "$state" ] && [[ "$state" != Z* ]] && echo "$pid"
}

# Really answering = a client can fetch cluster metadata, not just an open port. Prints the broker's
# log.dirs (read from the broker itself), which says whose broker it is (kafka_report).
kafka_answers() {
  if [ -d "$root/node_modules/kafkajs" ]; then
    (cd "$root" && node -e '
      const { Kafka, logLevel, ConfigResourceTypes } = require("kafkajs");
      const admin = new Kafka({ brokers: [process.argv[1]], logLevel: logLevel.NOTHING,
        connectionTimeout: 1000, requestTimeout: 2000, retry: { retries: 0 } }).admin();
      const t = setTimeout(() => process.exit(1), 4000);
      admin.connect().then(() => admin.describeCluster())
        .then((c) => admin.describeConfigs({ includeSynonyms: false, resources: [{ type: ConfigResourceTypes.BROKER,
          name: String(c.brokers[0].nodeId), configNames: ["log.dirs"] }] })
          .then((r) => console.log(r.resources[0].configEntries[0]?.configValue ?? ""), () => console.log("")))
        .then(() => { clearTimeout(t); return admin.disconnect(); })
        .then(() => process.exit(0), () => process.exit(1));' "127.0.0.1:$kafka_port") 2>/dev/null
  else
    port_open "$kafka_port" && grep -q "Kafka Server started\|Transition from STARTING to STARTED" "$kdir/logs/server.log" 2>/dev/null
  fi
}

# Whose broker answers on the port: this script records the checkout that started a broker in
# <its INFRA_DIR>/kafka/owner, beside the broker's log.dirs (<INFRA_DIR>/kafka/data).
kafka_report() { # the broker's log.dirs, as kafka_answers printed it
  local logdirs=$1 bdir owner
  bdir="$(dirname "${logdirs%%,*}")"
  # without kafkajs (node_modules not installed yet) the broker is not asked: a live broker of our pid file is ours
  [ -z "$logdirs" ] && kafka_pid >/dev/null && bdir="$kdir"
  owner="$(cat "$bdir/owner" 2>/dev/null || true)"
  if [ "$bdir" = "$kdir" ]; then
    say "kafka: up (127.0.0.1:$kafka_port), started by this checkout (pid $(kafka_pid || echo '?'), data $kdir/data)"
  elif [ -n "$owner" ] && [ "$owner" != "$root" ]; then
    say "kafka: up (127.0.0.1:$kafka_port), started by checkout $owner (not this one); using it"
  elif [ -n "$owner" ]; then
    say "kafka: up (127.0.0.1:$kafka_port), started by this checkout with INFRA_DIR=$(dirname "$bdir") (not $infra); using it"
  else
    say "kafka: up (127.0.0.1:$kafka_port), not started by this script (log.dirs ${logdirs:-unknown}); using it"
  fi
}

fetch_kafka() {
  if [ -n "$(ls -A "$libs" 2>/dev/null)" ]; then return; fi
  command -v mvn >/dev/null || { say "kafka: mvn not found (install Maven, or use docker compose)"; return 1; }
  say "kafka: fetching the broker's jars from Maven Central (once; cached in ~/.m2 and $libs)"
  local t0=$SECONDS
  mvn -B -q -f "$root/tools/kafka/pom.xml" -Dlibs.dir="$libs" package
  say "kafka: jars fetched in $((SECONDS - t0)) s"
}

start_broker() {
  rm -f "$pidfile"
  echo "$root" > "$kdir/owner"
  local overrides=(--override "log.dirs=$kdir/data"
    --override "listeners=PLAINTEXT://127.0.0.1:$kafka_port,CONTROLLER://127.0.0.1:$controller_port"
    --override "advertised.listeners=PLAINTEXT://127.0.0.1:$kafka_port"
    --override "controller.quorum.voters=1@127.0.0.1:$controller_port")
  if [ ! -f "$kdir/data/meta.properties" ]; then
    [ -f "$kdir/cluster.id" ] || java -Dlog4j.configuration="file:$root/tools/kafka/log4j.properties" -Dkafka.logs.dir="$kdir/logs" -cp "$libs/*" kafka.tools.StorageTool random-uuid > "$kdir/cluster.id"
    local conf="$kdir/server.properties"
    { cat "$root/tools/kafka/server.properties"
      echo "log.dirs=$kdir/data"
      echo "listeners=PLAINTEXT://127.0.0.1:$kafka_port,CONTROLLER://127.0.0.1:$controller_port"
      echo "advertised.listeners=PLAINTEXT://127.0.0.1:$kafka_port"
      echo "controller.quorum.voters=1@127.0.0.1:$controller_port"; } > "$conf"
    java -Dlog4j.configuration="file:$root/tools/kafka/log4j.properties" -Dkafka.logs.dir="$kdir/logs" \
      -cp "$libs/*" kafka.tools.StorageTool format -t "$(cat "$kdir/cluster.id")" -c "$conf" --ignore-formatted >/dev/null
  fi
  say "kafka: starting the broker (logs: $kdir/logs)"
  nohup java -Xms256m -Xmx512m -XX:+UseG1GC -XX:MaxGCPauseMillis=20 -Djava.awt.headless=true \
    -Dlog4j.configuration="file:$root/tools/kafka/log4j.properties" -Dkafka.logs.dir="$kdir/logs" \
    -cp "$libs/*" kafka.Kafka "$root/tools/kafka/server.properties" "${overrides[@]}" \
    > "$kdir/logs/stdout.log" 2>&1 < /dev/null &
  echo $! > "$pidfile"
}

ensure_kafka() {
  if [ -n "${KAFKA_BROKERS:-}" ] && ! [[ "$KAFKA_BROKERS" =~ ^(127\.0\.0\.1|localhost):$kafka_port$ ]]; then
    say "kafka: KAFKA_BROKERS=$KAFKA_BROKERS is not local; not starting a broker"; return
  fi
  local logdirs
  if logdirs="$(kafka_answers)"; then kafka_report "$logdirs"; return; fi
  command -v java >/dev/null || { say "kafka: java not found (Java 17+ needed, or use docker compose)"; return 1; }
  fetch_kafka
  mkdir -p "$kdir/data" "$kdir/logs"
  kafka_pid >/dev/null || start_broker
  local restarted=0
  local t0=$SECONDS
  while (( SECONDS - t0 < 90 )); do
    if logdirs="$(kafka_answers)"; then say "kafka: answers after $((SECONDS - t0)) s"; kafka_report "$logdirs"; return; fi
    if ! kafka_pid >/dev/null; then
      # died at start (e.g. a previous broker was still releasing its files): one more try
      (( restarted == 0 )) || break
      restarted=1; sleep 2; start_broker
    fi
    sleep 1
  done
  say "kafka: did not come up; last log lines:"
  tail -n 30 "$kdir/logs/server.log" "$kdir/logs/stdout.log" 2>/dev/null || true
  return 1
}

stop_kafka() {
  local pid; pid="$(kafka_pid || true)"
  if [ -z "$pid" ]; then say "kafka: not started by this checkout; left as it is"; rm -f "$pidfile"; return; fi
  kill "$pid"
  for _ in $(seq 1 30); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
  kill -9 "$pid" 2>/dev/null || true
  rm -f "$pidfile"
  say "kafka: stopped"
}

# The services a command applies to: the ones named after it, or all three.
services() {
  local s
  (( $# > 0 )) || set -- postgres redis kafka
  for s in "$@"; do
    case "$s" in postgres|redis|kafka) ;; *) echo "unknown service: $s (postgres|redis|kafka)" >&2; exit 2 ;; esac
  done
  picked=("$@")
}

status() {
  local logdirs
  case "$1" in
    postgres) pg_up && say "postgres: up" || say "postgres: down" ;;
    redis) redis_up && redis_report || say "redis: down (127.0.0.1:$redis_port)" ;;
    kafka) if logdirs="$(kafka_answers)"; then kafka_report "$logdirs"; else say "kafka: down (127.0.0.1:$kafka_port)"; fi ;;
  esac
}

# Follows the log of the broker that answers on the port, whichever checkout started it (its log sits beside
# the log.dirs it reports); with no broker answering, this checkout's last broker log, if there is one.
kafka_logs() {
  local log="$kdir/logs/server.log" logdirs
  if logdirs="$(kafka_answers)" && [ -n "$logdirs" ]; then
    log="$(dirname "${logdirs%%,*}")/logs/server.log"
    if [ ! -r "$log" ]; then
      say "kafka: the broker on 127.0.0.1:$kafka_port was not started by infra.sh (no $log); \`$0 status kafka\` says whose it is"
      exit 1
    fi
  elif [ ! -r "$log" ]; then
    say "kafka: no broker answers on 127.0.0.1:$kafka_port and this checkout has no broker log ($log)"
    exit 1
  fi
  say "kafka: following $log (Ctrl-C to stop)"
  exec tail -n "${LINES:-100}" -f "$log"
}

cmd="${1:-}"
[ $# -eq 0 ] || shift
picked=()
case "$cmd" in up|down|status) services "$@" ;; esac
case "$cmd" in
  up) for s in "${picked[@]}"; do "ensure_$s"; done ;;
  down)
    for s in "${picked[@]}"; do
      case "$s" in redis) stop_redis ;; kafka) stop_kafka ;; postgres) say "postgres: left as it is (the machine's)" ;; esac
    done ;;
  status) for s in "${picked[@]}"; do status "$s"; done ;;
  logs) kafka_logs ;;
  cluster) exec bash "$root/scripts/redis-cluster.sh" "$@" ;;
  *) echo "usage: $0 up|down|status [postgres|redis|kafka ...] | logs | cluster up|down|status" >&2; exit 2 ;;
esac
