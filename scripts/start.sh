#!/usr/bin/env bash
# The README's run command (`npm start`): brings up PostgreSQL, Redis and Kafka (Docker Compose when a
# Docker engine answers, otherwise the local services via scripts/infra.sh), builds both apps, then runs
# the expiry consumer in the background and the seat API in the foreground. Ctrl-C stops both.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

[ -d node_modules ] || npm ci --no-audit --no-fund

if docker info >/dev/null 2>&1; then
  echo "[start] Docker engine found: docker compose up"
  docker compose up -d --wait
else
  echo "[start] no Docker engine: local services via scripts/infra.sh"
  bash scripts/infra.sh up
fi

if [ ! -f .env ]; then
  cp .env.example .env
  echo "[start] created .env from .env.example (edit it to change ports, limits, secrets)"
fi
set -a
# shellcheck disable=SC1091
. ./.env
set +a

npm run --silent build

node dist/apps/expiry-consumer/src/main.js &
consumer=$!
trap 'kill "$consumer" 2>/dev/null || true; wait "$consumer" 2>/dev/null || true' EXIT INT TERM

node dist/apps/seat-api/src/main.js
