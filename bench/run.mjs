// `npm run bench`: the canonical query against Roster and its peers, alternating, on this machine.
// Servers run in their own processes; the load (autocannon) runs here.
import { fork, spawn } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { cpus, totalmem } from 'node:os';
import { createServer as createHttpServer } from 'node:http';
import autocannon from 'autocannon';
import { createApp } from '../dist/app.js';
import { loadConfig } from '../dist/config.js';
import { createDb } from '../dist/stores/knex.js';
import { EVENT_SLUG, canonicalQuery, createDataset } from './dataset.mjs';
import { svgChart } from './chart.mjs';

const DURATION = Number(process.env.BENCH_DURATION ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const SWEEP = [1, 10, 50, 100, 1000];
const DB_FILE = '/tmp/roster-bench.sqlite3';
const here = (path) => new URL(path, import.meta.url).pathname;

const SERVERS = [
  { name: 'Roster', script: here('servers/roster.mjs') },
  { name: 'GraphQL Yoga', script: here('servers/yoga.mjs') },
  { name: 'Mercurius + graphql-jit', script: here('servers/mercurius.mjs') },
  { name: 'Ceiling (bare http)', script: here('servers/ceiling.mjs') },
];

async function freePort() {
  const srv = createServer();
  await new Promise((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const { port } = srv.address();
  await new Promise((resolve) => srv.close(resolve));
  return port;
}

async function startServer(script, env) {
  const port = await freePort();
  const child = fork(script, {
    // Production mode for every server alike (graphql-js, Express and Apollo all read NODE_ENV).
    env: { ...process.env, NODE_ENV: 'production', ...env, PORT: String(port), BASE_URL: `http://127.0.0.1:${port}` },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  await new Promise((resolve, reject) => {
    child.once('message', resolve);
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
  });
  return { child, url: `http://127.0.0.1:${port}` };
}

/** CPU time (user + system) a process has used so far, in ms (Linux clock ticks are 10 ms). */
const cpuMs = (pid) => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
};

const peakRssMb = (pid) => {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmHWM:\s+(\d+) kB/);
  return line ? Number(line[1]) / 1024 : NaN;
};

function load(url, token, body, duration = DURATION) {
  return autocannon({
    url: `${url}/graphql`,
    method: 'POST',
    connections: CONNECTIONS,
    duration,
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', Accept: 'application/json' },
    body,
  });
}

async function stop(child) {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

/** SQL statements per request, counted in-process on the same dataset, for each page size. */
async function statementsPerRequest(databaseUrl, token) {
  // The same budget as the benchmarked server: the rounds before have spent any default one.
  const env = {
    NODE_ENV: 'production',
    BASE_URL: 'http://127.0.0.1',
    LOG_LEVEL: 'silent',
    RATE_LIMIT_POINTS: '1000000000',
    DATABASE_URL: databaseUrl,
  };
  const config = loadConfig(env, false);
  const db = createDb(databaseUrl);
  const roster = await createApp({ config, db });
  const server = createHttpServer(roster.app);
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${server.address().port}/graphql`;
  const counts = {};
  for (const first of SWEEP) {
    const ask = () =>
      fetch(url, {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ query: canonicalQuery(first), variables: { slug: EVENT_SLUG } }),
      }).then(async (r) => {
        const text = await r.text();
        // Only a full answer counts: a refusal (401, 429) would skip the resolvers' statements.
        if (r.status !== 200 || !text.startsWith('{"data":{"event":{"registrations"')) {
          throw new Error(`statement count: unexpected answer ${r.status} ${text.slice(0, 200)}`);
        }
        return text;
      });
    await ask();
    let count = 0;
    const listener = () => (count += 1);
    db.on('query', listener);
    await ask();
    db.off('query', listener);
    counts[first] = count;
  }
  server.close();
  await roster.close();
  await db.destroy();
  return counts;
}

/** `npm start`'s process (node dist/server.js) from spawn to a ready /readyz, on an empty database. */
async function coldStartMs() {
  const file = '/tmp/roster-bench-cold.sqlite3';
  for (const suffix of ['', '-wal', '-shm']) rmSync(file + suffix, { force: true });
  const port = await freePort();
  const started = performance.now();
  const child = spawn(process.execPath, [here('../dist/server.js')], {
    env: {
      ...process.env,
      NODE_ENV: 'production',
      LOG_LEVEL: 'silent',
      PORT: String(port),
      BASE_URL: `http://127.0.0.1:${port}`,
      HOST: '127.0.0.1',
      DATABASE_URL: `sqlite:${file}`,
    },
    stdio: 'ignore',
  });
  for (;;) {
    const ok = await fetch(`http://127.0.0.1:${port}/readyz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  const ms = performance.now() - started;
  await stop(child);
  return ms;
}

const fmt = (n, digits = 0) =>
  n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

async function main() {
  console.log(`dataset: 1 event, 1,000 registrations, SQLite ${DB_FILE}`);
  const { databaseUrl, token } = await createDataset(DB_FILE);
  const body = JSON.stringify({ query: canonicalQuery(50), variables: { slug: EVENT_SLUG } });

  // The ceiling answers with exactly Roster's bytes.
  const probe = await startServer(SERVERS[0].script, { DATABASE_URL: databaseUrl });
  const expected = await (
    await fetch(`${probe.url}/graphql`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body,
    })
  ).text();
  await stop(probe.child);
  if (!expected.startsWith('{"data":{"event":{"registrations":{"nodes":['))
    throw new Error(`unexpected answer: ${expected.slice(0, 200)}`);

  const runs = Object.fromEntries(SERVERS.map((s) => [s.name, []]));
  for (let round = 1; round <= ROUNDS; round += 1) {
    for (const server of SERVERS) {
      const { child, url } = await startServer(server.script, { DATABASE_URL: databaseUrl, BODY: expected });
      const check = await (
        await fetch(`${url}/graphql`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
          body,
        })
      ).text();
      // Byte-identical but for a trailing newline (Apollo ends its JSON with one).
      if (check.trimEnd() !== expected.trimEnd()) {
        const at = [...check].findIndex((c, i) => c !== expected[i]);
        throw new Error(
          `${server.name} answers differently at ${at}: …${check.slice(at - 40, at + 60)} vs …${expected.slice(at - 40, at + 60)} (${check.length} vs ${expected.length} bytes)`,
        );
      }
      await load(url, token, body, 1); // warm-up
      const cpuBefore = cpuMs(child.pid);
      const result = await load(url, token, body);
      runs[server.name].push({
        rps: result.requests.average,
        // The server's own CPU per answered request: steadier than req/s on a shared machine.
        cpuMsPerRequest: (cpuMs(child.pid) - cpuBefore) / result.requests.total,
        p50: result.latency.p50,
        p99: result.latency.p99,
        non2xx: result.non2xx,
        rssMb: peakRssMb(child.pid),
      });
      await stop(child);
      console.log(`round ${round}/${ROUNDS} ${server.name}: ${fmt(result.requests.average)} req/s`);
    }
  }

  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const summary = SERVERS.map(({ name }) => {
    const r = runs[name];
    return {
      name,
      rps: median(r.map((x) => x.rps)),
      p50: median(r.map((x) => x.p50)),
      p99: median(r.map((x) => x.p99)),
      cpuMsPerRequest: median(r.map((x) => x.cpuMsPerRequest)),
      rssMb: Math.max(...r.map((x) => x.rssMb)),
      non2xx: r.reduce((n, x) => n + x.non2xx, 0),
    };
  });
  const roster = summary.find((s) => s.name === 'Roster');
  const ceiling = summary.find((s) => s.name.startsWith('Ceiling'));

  // Page-size sweep for Roster (one run each) and its SQL statements per request.
  const statements = await statementsPerRequest(databaseUrl, token);
  const sweep = [];
  for (const first of SWEEP) {
    const { child, url } = await startServer(SERVERS[0].script, { DATABASE_URL: databaseUrl });
    const sweepBody = JSON.stringify({ query: canonicalQuery(first), variables: { slug: EVENT_SLUG } });
    await load(url, token, sweepBody, 1);
    const result = await load(url, token, sweepBody, Math.max(2, Math.round(DURATION / 2)));
    sweep.push({
      first,
      rps: result.requests.average,
      p50: result.latency.p50,
      p99: result.latency.p99,
      statements: statements[first],
    });
    await stop(child);
  }
  const coldStart = await coldStartMs();

  const machine = `${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${fmt(totalmem() / 2 ** 30, 1)} GiB, Node ${process.version}`;
  const lines = [
    `machine: ${machine}; ${ROUNDS} alternating rounds × ${DURATION} s, ${CONNECTIONS} connections, medians`,
    '',
    '| server | req/s | p50 ms | p99 ms | × Roster | × ceiling | server CPU ms/request | SQL/request | peak RSS MB | non-2xx |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...summary.map(
      (s) =>
        `| ${s.name} | ${fmt(s.rps)} | ${fmt(s.p50, 1)} | ${fmt(s.p99, 1)} | ${fmt(s.rps / roster.rps, 2)} | ${fmt(s.rps / ceiling.rps, 2)} | ${fmt(s.cpuMsPerRequest, 2)} | ${s.name === 'Roster' ? statements[50] : '–'} | ${fmt(s.rssMb)} | ${s.non2xx} |`,
    ),
    '',
    '| Roster, first: | req/s | p50 ms | p99 ms | SQL/request |',
    '| ---: | ---: | ---: | ---: | ---: |',
    ...sweep.map((s) => `| ${s.first} | ${fmt(s.rps)} | ${fmt(s.p50, 1)} | ${fmt(s.p99, 1)} | ${s.statements} |`),
    '',
    `cold start (node dist/server.js to a ready /readyz, empty database): ${fmt(coldStart)} ms`,
  ];
  console.log(`\n${lines.join('\n')}`);
  mkdirSync(here('results'), { recursive: true });
  const report = {
    date: new Date().toISOString(),
    machine,
    duration: DURATION,
    rounds: ROUNDS,
    connections: CONNECTIONS,
    summary,
    runs,
    sweep,
    coldStartMs: coldStart,
  };
  writeFileSync(here('results/latest.json'), JSON.stringify(report, null, 2) + '\n');
  writeFileSync(here('results/latest.md'), lines.join('\n') + '\n');
  writeFileSync(here('results/latest.svg'), svgChart(summary));
  console.log('\nwritten: bench/results/latest.json, latest.md, latest.svg');
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
