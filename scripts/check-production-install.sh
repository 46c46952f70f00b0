#!/usr/bin/env bash
# The Dockerfile without Docker: in a fresh copy of the build context, run its build stage's RUN lines
# (npm ci, npm run build, npm prune --omit=dev); lay out only what its runtime stage copies; start that
# as the image does (NODE_ENV=production, SQLite in data/): `node dist/cli/index.js migrate` (the CLI as the image runs it) must work, then the server
# must answer /readyz 200 and a discovery document naming BASE_URL, warn nothing, and exit 0 on SIGTERM.
# Usage: scripts/check-production-install.sh   (with the Dockerfile's Node.js line first on PATH)
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
DOCKERFILE="$ROOT/Dockerfile"
WORK=$(mktemp -d /tmp/roster-prod.XXXXXX)
APP="$WORK/app"         # the build stage's /app
RUNTIME="$WORK/runtime" # the runtime stage's /app
SERVER_PID=
cleanup() {
  if [ -n "$SERVER_PID" ]; then kill -KILL "$SERVER_PID" 2>/dev/null || true; fi
  rm -rf "$WORK"
}
trap cleanup EXIT
fail() {
  echo "check-production-install: $*" >&2
  exit 1
}

# Stage N of the Dockerfile (1 = build, 2 = runtime), without comments.
stage() { awk -v want="$1" '/^FROM /{n++} n==want && !/^[[:space:]]*#/' "$DOCKERFILE"; }

line=$(stage 1 | sed -nE 's/^FROM node:([0-9]+)[^ ]* AS build$/\1/p')
[ -n "$line" ] || fail "the Dockerfile's first stage is not 'FROM node:<major>... AS build'"
have=$(node -p 'process.versions.node.split(".")[0]')
[ "$have" = "$line" ] || fail "the image builds on Node.js $line, this is $(node --version): PATH=\"\$(scripts/install-node.sh $line):\$PATH\""
stage 2 | grep -qFx 'CMD ["node", "--heap-growing-percent=50", "dist/server.js"]' ||
  fail "the runtime stage no longer starts node --heap-growing-percent=50 dist/server.js (docs/operations.md: Production)"
NODE_FLAGS=$(stage 2 | sed -nE 's/^ENV NODE_OPTIONS=(.*)$/\1/p')
[ "$NODE_FLAGS" = "--max-semi-space-size=8" ] || fail "the runtime stage no longer sets NODE_OPTIONS=--max-semi-space-size=8 (docs/operations.md: Production)"

echo "== build context: the repository's files less .dockerignore"
mkdir -p "$APP" "$RUNTIME"
# Tracked and new files as they are on disk (a deleted file is gone), as a docker build would see them.
(
  cd "$ROOT"
  git ls-files -z --cached --others --exclude-standard | while IFS= read -r -d '' f; do
    if [ -e "$f" ]; then printf '%s\0' "$f"; fi
  done | tar --null -T - -cf -
) | tar -xf - -C "$APP"
# Patterns are root-relative globs here, as Docker reads them (no '!' exceptions used).
(
  cd "$APP"
  shopt -s dotglob nullglob
  while IFS= read -r pattern; do
    case "$pattern" in '' | '#'*) continue ;; '!'*) fail ".dockerignore exceptions are not handled here" ;; esac
    # shellcheck disable=SC2086 # the pattern is a glob on purpose
    rm -rf -- $pattern
  done <"$ROOT/.dockerignore"
)

echo "== build stage (Node.js $(node --version))"
while IFS= read -r step; do
  [[ "$step" == *\\ ]] && fail "a RUN line continues on the next line: keep each RUN on one line"
  echo "-- $step"
  (cd "$APP" && bash -c "$step")
done < <(stage 1 | sed -nE 's/^RUN (.*)$/\1/p')

echo "== runtime stage: only what it copies"
while read -r src dest; do
  [[ "$src" == /app/* ]] || fail "COPY --from=build of $src: expected a path under /app"
  from="$APP/${src#/app/}"
  to="$RUNTIME/${dest#./}"
  [ -e "$from" ] || fail "the runtime stage copies $src, which the build did not produce"
  if [ -d "$from" ]; then
    mkdir -p "$to" && cp -a "$from/." "$to/"
  else
    mkdir -p "$(dirname "$to")" && cp -a "$from" "$to"
  fi
done < <(stage 2 | sed -nE 's/^COPY --from=build ([^ ]+) ([^ ]+)$/\1 \2/p')
[ -d "$RUNTIME/node_modules/jest" ] && fail "the runtime still has dev dependencies (jest)"

echo "== node dist/cli/index.js migrate (the operator CLI in the image, as run once per release)"
(cd "$RUNTIME" && env -u DATABASE_URL NODE_ENV=production BASE_URL=http://127.0.0.1 node dist/cli/index.js migrate --json) >"$WORK/migrate.json"
node -e "const r = JSON.parse(require('fs').readFileSync('$WORK/migrate.json', 'utf8')); if (!r.migrated.length) process.exit(1); console.log('migrated:', r.migrated.join(', '))" ||
  fail "roster migrate did not migrate the empty database"

PORT=$(node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")
BASE_URL="http://127.0.0.1:$PORT"
LOG="$WORK/server.log"
echo "== node dist/server.js, NODE_ENV=production, on $BASE_URL"
(
  cd "$RUNTIME"
  exec env -u DATABASE_URL -u LOG_LEVEL NODE_ENV=production NODE_OPTIONS="$NODE_FLAGS" HOST=127.0.0.1 PORT="$PORT" \
    BASE_URL="$BASE_URL" node --heap-growing-percent=50 dist/server.js
) >"$LOG" 2>&1 &
SERVER_PID=$!

ready=
for _ in $(seq 1 300); do
  kill -0 "$SERVER_PID" 2>/dev/null || break
  if node -e "fetch('$BASE_URL/readyz').then((r) => process.exit(r.status === 200 ? 0 : 1), () => process.exit(1))"; then
    ready=yes
    break
  fi
  sleep 0.1
done
[ -n "$ready" ] || {
  cat "$LOG" >&2
  fail "/readyz never answered 200"
}
echo "/readyz: 200"

node -e "
fetch('$BASE_URL/.well-known/openid-configuration').then(async (r) => {
  const doc = await r.json();
  if (r.status !== 200 || doc.issuer !== '$BASE_URL' || !String(doc.jwks_uri).startsWith('$BASE_URL/')) {
    console.error('discovery:', r.status, JSON.stringify(doc));
    process.exit(1);
  }
  console.log('discovery: issuer', doc.issuer);
});" || fail "discovery does not describe $BASE_URL"
# The offline explorer's files come from runtime dependencies: the pruned install must still serve them.
node -e "
fetch('$BASE_URL/graphql', { headers: { Accept: 'text/html' } }).then(async (r) => {
  const paths = (await r.text()).match(/\/graphql\/explorer\/[0-9a-f]+\/[a-z-]+\.(js|css)/g) ?? [];
  const statuses = await Promise.all(paths.map((p) => fetch('$BASE_URL' + p).then((a) => a.status)));
  if (r.status !== 200 || paths.length < 4 || statuses.some((s) => s !== 200)) {
    console.error('explorer:', r.status, paths, statuses);
    process.exit(1);
  }
  console.log('explorer: page and', paths.length, 'files');
});" || fail "the explorer page or its files are not served"
# The image's HEALTHCHECK command itself, as Docker runs it (exec form, in /app).
HEALTHCHECK_CMD=$(stage 2 | sed -e ':a' -e '/\\$/N; s/\\\n//; ta' | sed -nE 's/^HEALTHCHECK .*CMD (\[.*\])$/\1/p')
[ -n "$HEALTHCHECK_CMD" ] || fail "the runtime stage has no HEALTHCHECK ... CMD [...]"
healthcheck() {
  (cd "$RUNTIME" && PORT="$PORT" node -e "
const [cmd, ...args] = JSON.parse(process.argv[1]);
process.exit(require('child_process').spawnSync(cmd, args, { stdio: 'inherit' }).status ?? 1);" "$HEALTHCHECK_CMD")
}
healthcheck || fail "the HEALTHCHECK command fails against a ready server"
echo "HEALTHCHECK: healthy"
[ -s "$RUNTIME/data/roster.sqlite3" ] || fail "the database is not in data/ (the image's volume)"
if grep -qiE 'warning|unsupported' "$LOG"; then
  cat "$LOG" >&2
  fail "the server warned at start"
fi

kill -TERM "$SERVER_PID"
code=0
for _ in $(seq 1 150); do
  kill -0 "$SERVER_PID" 2>/dev/null || break
  sleep 0.1
done
if kill -0 "$SERVER_PID" 2>/dev/null; then
  fail "still running 15 s after SIGTERM"
fi
wait "$SERVER_PID" || code=$?
SERVER_PID=
[ "$code" = 0 ] || {
  cat "$LOG" >&2
  fail "exit code $code after SIGTERM"
}
echo "SIGTERM: exit 0"
if healthcheck 2>/dev/null; then fail "the HEALTHCHECK command passes with no server"; fi
echo "production install: ok"
