#!/usr/bin/env bash
# The README's first command on a fresh machine whose own Node.js is too old: in a fresh copy of the
# repository, with only the machine's Node on PATH and an empty Node cache, `npm install && npm start`
# must serve the canonical query to a token from the README's `npx roster token create` line, and leave
# package-lock.json as committed.
# Usage: scripts/check-readme-commands.sh [DIR_OF_AN_OLD_NODE]   (default: the node first on PATH)
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
OLD_NODE_DIR=${1:-$(dirname "$(command -v node)")}
WORK=$(mktemp -d /tmp/roster-readme.XXXXXX)
APP="$WORK/roster"
SERVER_PID=
cleanup() {
  if [ -n "$SERVER_PID" ]; then kill -KILL -- "-$SERVER_PID" 2>/dev/null || true; fi
  rm -rf "$WORK"
}
trap cleanup EXIT
fail() {
  echo "check-readme-commands: $*" >&2
  [ -f "$WORK/start.log" ] && tail -n 30 "$WORK/start.log" >&2
  exit 1
}

old=$("$OLD_NODE_DIR/node" --version)
echo "== the machine's Node.js: $old ($OLD_NODE_DIR)"
# What a clone holds: tracked and new files as they are on disk, nothing ignored (no node_modules, dist).
mkdir -p "$APP"
(
  cd "$ROOT"
  git ls-files -z --cached --others --exclude-standard | while IFS= read -r -d '' f; do
    if [ -e "$f" ]; then printf '%s\0' "$f"; fi
  done | tar --null -T - -cf -
) | tar -xf - -C "$APP"

PORT=$("$OLD_NODE_DIR/node" -e "const s = require('net').createServer().listen(0, '127.0.0.1', () => { console.log(s.address().port); s.close(); })")
# Only the old Node and the system's tools on PATH; a Node cache of its own, so the fetch is exercised too.
export PATH="$OLD_NODE_DIR:/usr/local/bin:/usr/bin:/bin"
export ROSTER_NODE_HOME="$WORK/node-cache" PORT BASE_URL="http://127.0.0.1:$PORT"
unset DATABASE_URL NODE_ENV NODE_OPTIONS

echo "== npm install && npm start (in $APP, port $PORT)"
cd "$APP"
setsid bash -c 'npm install && npm start' >"$WORK/start.log" 2>&1 &
SERVER_PID=$!
deadline=$((SECONDS + 900))
until curl -sf "http://127.0.0.1:$PORT/readyz" >/dev/null; do
  kill -0 "$SERVER_PID" 2>/dev/null || fail "npm install && npm start stopped before serving"
  [ "$SECONDS" -lt "$deadline" ] || fail "not serving after 900 s"
  sleep 2
done
grep -q "is older than 22; using v24" "$WORK/start.log" || fail "npm start did not say it runs on a fetched Node.js"
cmp -s "$ROOT/package-lock.json" "$APP/package-lock.json" || fail "npm install changed package-lock.json"

echo "== the README's query with a token from npx roster token create"
TOKEN=$(npx roster token create --user organizer@example.com --client roster-demo)
ANSWER=$(curl -s "http://127.0.0.1:$PORT/graphql" -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \
  -d '{"query":"{ event(slug: \"roster-launch\") { name registrations(first: 5) { totalCount nodes { registrant { name email } } } } }"}')
echo "$ANSWER" | node -e '
  const answer = JSON.parse(require("fs").readFileSync(0, "utf8"));
  const event = answer.data && answer.data.event;
  if (!event || !(event.registrations.totalCount > 0) || !event.registrations.nodes.every((n) => n.registrant.email.includes("@")))
    throw new Error("not the canonical answer: " + JSON.stringify(answer).slice(0, 300));
  console.log(`${event.name}: ${event.registrations.totalCount} registrations, emails included`);
' || fail "the canonical query did not answer"

kill -TERM -- "-$SERVER_PID"
wait "$SERVER_PID" || true
SERVER_PID=

echo "== node dist/server.js on Node.js $old itself stops, saying why in one line"
if node dist/server.js >"$WORK/direct.log" 2>&1; then fail "node dist/server.js ran on Node.js $old"; fi
grep -qx "roster: Node.js ${old#v} is not supported: .*" "$WORK/direct.log" || fail "not one line: $(head -c 500 "$WORK/direct.log")"
echo "== ok: the README's first command works on Node.js $old"
