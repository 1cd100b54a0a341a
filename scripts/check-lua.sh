#!/usr/bin/env bash
# Syntax-checks every .lua file of the apps and libraries with Lua 5.1's compiler, the Lua that Redis
# runs: parse only, nothing is executed or written. A helper file is checked on its own; the whole hold
# library is loaded into Redis by its tests (hold-scripts.int-spec.ts).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
if ! command -v luac5.1 >/dev/null 2>&1; then
  echo "check:lua needs luac5.1 (Debian's lua5.1 package: apt-get install lua5.1)" >&2
  exit 1
fi
find apps libs -name '*.lua' -print0 | xargs -0 luac5.1 -p
