// What run.mjs and stages.mjs share: the database in use, server processes, requests and load.
import { fork } from 'node:child_process';
import { createServer } from 'node:net';
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

/** How the image and the README's production command start Roster (Dockerfile: NODE_OPTIONS). */
export const AS_SHIPPED = { NODE_OPTIONS: '--max-semi-space-size=8' };

export async function startServer(script, env) {
  const port = await freePort();
  const child = fork(script, {
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

export const post = (url, token, body) =>
  fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', Accept: 'application/json' },
    body,
  });

export function load(url, token, sequence, duration) {
  let clients = 0;
  const stride = Math.ceil(sequence.length / CONNECTIONS);
  return autocannon({
    url: `${url}/graphql`,
    method: 'POST',
    connections: CONNECTIONS,
    duration,
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', Accept: 'application/json' },
    requests: sequence.map((body) => ({ body })),
    setupClient(client) {
      // Connection n starts n strides into the sequence, so the connections do not walk it in step.
      const offset = (clients++ * stride) % sequence.length;
      if (offset)
        client.setRequests([...sequence.slice(offset), ...sequence.slice(0, offset)].map((body) => ({ body })));
    },
  });
}
