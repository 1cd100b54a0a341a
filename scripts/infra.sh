#!/usr/bin/env bash
# Local infrastructure for machines without a container engine (ours and CI):
#   PostgreSQL 127.0.0.1:5432 and Redis 127.0.0.1:6379 — normally already running; started with the
#   machine's own binaries when they are not; and a real Apache Kafka broker (KRaft, single node) on
#   127.0.0.1:9092, run from its Maven Central jars.
# Usage: scripts/infra.sh up|down|status|logs      (idempotent: a second `up` is a no-op)
#        scripts/infra.sh cluster up|down|status  a local 3-master + 3-replica Redis Cluster on 127.0.0.1:7101-7106
#                                                 (scripts/redis-cluster.sh; independent of the services above)
# Env: INFRA_DIR (default <repo>/.infra), KAFKA_PORT (9092), KAFKA_CONTROLLER_PORT (9093), KAFKA_LIBS (jar dir),
#      KAFKA_BROKERS (if set to a non-local address, Kafka is not started here).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
infra="${INFRA_DIR:-$root/.infra}"
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
redis_up() { redis-cli -h 127.0.0.1 -p 6379 ping 2>/dev/null | grep -q PONG; }
ensure_redis() {
  if redis_up; then say "redis: up (127.0.0.1:6379)"; return; fi
  command -v redis-server >/dev/null || { say "redis: not running and redis-server not installed"; return 1; }
  local dir=/var/lib/redis log=/var/log/redis/ci.log
  if [ ! -w "$dir" ] || [ ! -d /var/log/redis ]; then dir="$infra/redis"; log="$infra/redis/redis.log"; mkdir -p "$dir"; fi
  say "redis: starting redis-server"
  redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no --dir "$dir" --logfile "$log"
  for _ in $(seq 1 40); do redis_up && { say "redis: up"; return; }; sleep 0.25; done
  say "redis: did not come up (log: $log)"; return 1
}

# ---------------------------------------------------------------- Kafka
# The broker's pid, if it is alive (a killed process can linger a moment as a zombie: that is not alive).
kafka_pid() {
  [ -f "$pidfile" ] || return 1
  local pid; pid="$(cat "$pidfile")"
  local state; state="$(ps -o stat= -p "$pid" 2>/dev/null || true)"
  [ -n "$state" ] && [[ "$state" != Z* ]] && echo "$pid"
}

# Really answering = a client can fetch cluster metadata, not just an open port.
kafka_answers() {
  if [ -d "$root/node_modules/kafkajs" ]; then
    (cd "$root" && node -e '
      const { Kafka, logLevel } = require("kafkajs");
      const admin = new Kafka({ brokers: [process.argv[1]], logLevel: logLevel.NOTHING,
        connectionTimeout: 1000, requestTimeout: 2000, retry: { retries: 0 } }).admin();
      const t = setTimeout(() => process.exit(1), 4000);
      admin.connect().then(() => admin.describeCluster()).then(() => { clearTimeout(t); return admin.disconnect(); })
        .then(() => process.exit(0), () => process.exit(1));' "127.0.0.1:$kafka_port") 2>/dev/null
  else
    port_open "$kafka_port" && grep -q "Kafka Server started\|Transition from STARTING to STARTED" "$kdir/logs/server.log" 2>/dev/null
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
  if kafka_answers; then say "kafka: up (127.0.0.1:$kafka_port)"; return; fi
  command -v java >/dev/null || { say "kafka: java not found (Java 17+ needed, or use docker compose)"; return 1; }
  fetch_kafka
  mkdir -p "$kdir/data" "$kdir/logs"
  kafka_pid >/dev/null || start_broker
  local restarted=0
  local t0=$SECONDS
  while (( SECONDS - t0 < 90 )); do
    if kafka_answers; then say "kafka: up (127.0.0.1:$kafka_port) in $((SECONDS - t0)) s"; return; fi
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
  if [ -z "$pid" ]; then say "kafka: not started by this script"; rm -f "$pidfile"; return; fi
  kill "$pid"
  for _ in $(seq 1 30); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
  kill -9 "$pid" 2>/dev/null || true
  rm -f "$pidfile"
  say "kafka: stopped"
}

case "${1:-}" in
  up) ensure_postgres; ensure_redis; ensure_kafka ;;
  down) stop_kafka ;;
  status)
    pg_up && say "postgres: up" || say "postgres: down"
    redis_up && say "redis: up" || say "redis: down"
    kafka_answers && say "kafka: up (pid $(kafka_pid || echo '?'))" || say "kafka: down" ;;
  logs) tail -n "${LINES:-100}" -f "$kdir/logs/server.log" ;;
  cluster) exec bash "$root/scripts/redis-cluster.sh" "${@:2}" ;;
  *) echo "usage: $0 up|down|status|logs|cluster up|down|status" >&2; exit 2 ;;
esac
