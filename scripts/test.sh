#!/usr/bin/env bash
# The README's test command (`npm test`): on the Node.js of .nvmrc (installed from the npm registry when
# the machine's node is another version), with the dependencies installed when they are missing, runs
# every tier in one jest run (unit, integration, e2e: jest.config.js) and then the cluster list on the
# local Redis Cluster. Jest's global setup brings up the services the tests need (test/setup/).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

PATH="$(bash scripts/node-path.sh):$PATH"
export PATH

[ -d node_modules ] || npm ci --no-audit --no-fund

npx jest --runInBand
TEST_REDIS=cluster npx jest --runInBand
