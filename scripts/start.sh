#!/usr/bin/env bash
# The README's run command (`npm start`): brings up PostgreSQL, Redis and Kafka (Docker Compose when a
# Docker engine answers, otherwise the local services via scripts/infra.sh), builds the apps when their
# sources changed, then runs the seat API, the expiry consumer and the waitlist app side by side. If any
# process dies, the script says which one and stops the others (a half-running service is worse than a
# stopped one); Ctrl-C stops them all.
#
# Configuration: each app loads `.env` itself (libs/config/src/dot-env.ts), and a variable already set in
# the environment wins over the file, so `PORT=3100 npm start` listens on 3100.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

# The Node.js of .nvmrc (installed from the npm registry when the machine's node is another version).
PATH="$(bash scripts/node-path.sh):$PATH"
export PATH

[ -d node_modules ] || npm ci --no-audit --no-fund

if docker info >/dev/null 2>&1; then
  echo "[start] Docker engine found: docker compose up"
  docker compose up -d --wait postgres redis kafka
else
  echo "[start] no Docker engine: local services via scripts/infra.sh"
  bash scripts/infra.sh up
fi

if [ ! -f .env ]; then
  cp .env.example .env
  echo "[start] created .env from .env.example (edit it to change ports, limits, secrets)"
fi

# Rebuild only when a source, config or lock file is newer than the last build.
stamp=dist/.build-stamp
if [ ! -f "$stamp" ] || [ -n "$(find apps libs package.json package-lock.json tsconfig.json tsconfig.build.json nest-cli.json -newer "$stamp" -type f -print -quit)" ]; then
  echo "[start] building"
  npm run --silent build
  touch "$stamp"
else
  echo "[start] build is up to date"
fi

pids=()
names=()
run() { # name, then the command
  local name=$1
  shift
  "$@" &
  pids+=("$!")
  names+=("$name")
}
stop_all() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
}
trap 'stop_all; exit 130' INT TERM

# --max-semi-space-size=64: a larger young generation (64 MB semi-spaces instead of V8's 16 MB). A hold
# request allocates tens of KB, and with the default the seat API spent about a tenth of its CPU in
# scavenges (npm run bench:node-flags, bench/README.md; 256 MB did worse). The consumer
# gets the same flag untested: it allocates per message as the API does per request, and V8 grows the
# semi-spaces only when allocation needs them. The Dockerfile sets the same through NODE_OPTIONS.
port="${PORT:-$(sed -n 's/^PORT=//p' .env 2>/dev/null | tail -n1)}"
run expiry-consumer node --max-semi-space-size=64 dist/apps/expiry-consumer/src/main.js
run seat-api node --max-semi-space-size=64 dist/apps/seat-api/src/main.js
# the waitlist app makes its offer holds through this seat API, wherever PORT puts it
WAITLIST_SEAT_API_URL="${WAITLIST_SEAT_API_URL:-http://127.0.0.1:${port:-3000}}" \
  run waitlist node --max-semi-space-size=64 dist/apps/waitlist/src/main.js
echo "[start] seat picker: http://127.0.0.1:${port:-3000}/ (open the link with #token=... that the seat API prints)"

# Whichever process ends first ends the run.
set +e
wait -n "${pids[@]}"
status=$?
set -e
for i in "${!pids[@]}"; do
  if ! kill -0 "${pids[$i]}" 2>/dev/null; then
    echo "[start] ${names[$i]} exited (status $status); stopping the others" >&2
    break
  fi
done
stop_all
exit "$status"
