// What the benchmarks share: the database in use, server processes, requests and load, an earlier build.
import { execFileSync, fork } from 'node:child_process';
import { existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';

export const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
export const PG = process.env.BENCH_DB === 'pg';
export const DATABASE_URL = PG ? process.env.TEST_DATABASE_URL : 'sqlite:/tmp/roster-bench.sqlite3';
export const DB_NAME = PG ? 'PostgreSQL' : 'SQLite';
if (!DATABASE_URL) throw new Error('BENCH_DB=pg needs TEST_DATABASE_URL (run it under scripts/with-postgres.sh)');

export async function freePort() {
  const srv = createServer();
  await new Promise((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const { port } = srv.address();
  await new Promise((resolve) => srv.close(resolve));
  return port;
}

// Servers still running when this process exits (a failed check, Ctrl-C) go with it.
const running = new Set();
process.on('exit', () => running.forEach((child) => child.kill('SIGKILL')));
process.on('SIGINT', () => process.exit(130));

/** How the image and the README's production command start Roster (Dockerfile: NODE_OPTIONS ...). */
export const AS_SHIPPED = { NODE_OPTIONS: '--max-semi-space-size=8' };
/** ... and the node flags of its CMD, which NODE_OPTIONS may not carry. */
export const SHIPPED_NODE_ARGS = ['--heap-growing-percent=50'];

export async function startServer(script, env, execArgv = []) {
  const port = await freePort();
  const child = fork(script, {
    execArgv,
    // Production mode for every server alike (graphql-js, Express and Apollo all read NODE_ENV).
    env: {
      ...process.env,
      NODE_ENV: 'production',
      DATABASE_URL,
      ...env,
      PORT: String(port),
      BASE_URL: `http://127.0.0.1:${port}`,
    },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  running.add(child);
  child.once('exit', () => running.delete(child));
  await new Promise((resolve, reject) => {
    child.once('message', resolve);
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
  });
  return { child, url: `http://127.0.0.1:${port}` };
}

export async function stop(child) {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

const headersFor = (token) => ({
  Authorization: `Bearer ${token}`,
  'Content-Type': 'application/json',
  Accept: 'application/json',
});

export const post = (url, token, body) => fetch(`${url}/graphql`, { method: 'POST', headers: headersFor(token), body });

/** Longer than this, a sequence is shared out: each connection walks a part of its own. */
const SHARED_OUT = 1000;

/**
 * autocannon over the sequence. An entry is a body (sent with `token`) or `{ body, viewer }`, sent with
 * `tokens[viewer]`. A short sequence is walked whole by every connection, each from its own offset; a long
 * one (the no-repeat workload) is cut into one stride per connection, whose first half a measured run
 * walks and whose second half a warm-up (`warmUp`) does: a warm-up asks nothing the measured run asks, and
 * no connection asks what another does.
 */
export function load(
  url,
  token,
  sequence,
  duration,
  { tokens = [], warmUp = false, rate, connections = CONNECTIONS } = {},
) {
  const stride = Math.ceil(sequence.length / connections);
  const request = (entry) =>
    typeof entry === 'string' ? { body: entry } : { body: entry.body, headers: headersFor(tokens[entry.viewer]) };
  const listFor = (n) => {
    if (sequence.length <= SHARED_OUT) {
      const offset = (n * stride) % sequence.length;
      return [...sequence.slice(offset), ...sequence.slice(0, offset)].map(request);
    }
    const half = Math.floor(stride / 2);
    const from = n * stride + (warmUp ? half : 0);
    return sequence.slice(from, from + half).map(request);
  };
  let clients = 0;
  return autocannon({
    url: `${url}/graphql`,
    method: 'POST',
    connections,
    duration,
    // A fixed rate over all connections (requests a second), when given: else as fast as answers come.
    ...(rate ? { overallRate: rate } : {}),
    headers: headersFor(token),
    requests: listFor(0),
    setupClient(client) {
      const n = clients++;
      if (n) client.setRequests(listFor(n));
    },
  });
}

const ROOT_DIR = new URL('../', import.meta.url).pathname;

/** A git ref built once into a directory of its own (git archive, the same node_modules, tsc). */
export function buildBase(ref) {
  const sha = execFileSync('git', ['rev-parse', '--short', ref], { cwd: ROOT_DIR, encoding: 'utf8' }).trim();
  const dir = join(tmpdir(), `roster-bench-base-${sha}`);
  if (!existsSync(join(dir, 'dist/roster.js'))) {
    mkdirSync(dir, { recursive: true });
    execFileSync('sh', ['-c', `git archive ${sha} | tar -x -C ${dir}`], { cwd: ROOT_DIR });
    if (!existsSync(join(dir, 'node_modules'))) symlinkSync(join(ROOT_DIR, 'node_modules'), join(dir, 'node_modules'));
    execFileSync(process.execPath, [join(ROOT_DIR, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], {
      cwd: dir,
      stdio: 'inherit',
    });
  }
  return { sha, script: join(dir, 'bench/servers/roster.mjs') };
}

/**
 * Writes one run's raw results and its table to bench/results/<name>-<database>.{json,md} (BENCH_RESULTS, when
 * set, names it instead: a later run kept beside the one it is compared with), and prints the table.
 */
export function saveRun(name, record, md) {
  const path = join(ROOT_DIR, `bench/results/${process.env.BENCH_RESULTS ?? name}-${PG ? 'pg' : 'sqlite'}`);
  writeFileSync(`${path}.json`, JSON.stringify({ date: new Date().toISOString(), ...record }, null, 2));
  writeFileSync(`${path}.md`, md);
  console.log(`\n${md}\nwritten: ${path}.{json,md}`);
}

/** The middle of a list of figures (the upper one of an even count). */
export const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
/** A figure as the tables print it: thousands separated, `digits` decimals. */
export const fmt = (n, digits = 0) =>
  n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
