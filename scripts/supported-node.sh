#!/usr/bin/env bash
# Runs a command on a supported Node.js (22 LTS, 24 LTS or newer): the one on PATH when it is one, at the
# cost of one `node --version`; otherwise Node.js 24 from the npm registry, cached by install-node.sh.
# Usage: scripts/supported-node.sh node dist/server.js
set -euo pipefail

MIN=22
major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
if [ "$major" -ge "$MIN" ]; then
  exec "$@"
fi

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
bin=$("$here/install-node.sh" --cached 24)
echo "roster: Node.js $(node --version 2>/dev/null || echo '(none)') on PATH is older than $MIN; using $("$bin/node" --version) from $bin" >&2
PATH="$bin:$PATH" exec "$@"
