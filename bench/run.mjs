// `npm run bench` (SQLite) and `npm run bench:pg` (PostgreSQL): the canonical query against Roster, the
// plain alternative and the other peers, alternating, on this machine. Servers run in their own processes;
// the load (autocannon) runs here. Every server's answers are checked byte for byte against Roster's.
// Then the live streams' bench (bench/streams.mjs) on the same database.
import { spawn } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { createServer as createHttpServer } from 'node:http';
import { createRoster } from '../dist/roster.js';
import { loadConfig } from '../dist/config.js';
import { createDb } from '../dist/stores/database.js';
import {
  CANONICAL_SLUG,
  REGISTRANTS,
  ROTATING_REGISTRANTS,
  SWEEP_SLUG,
  WORKLOADS,
  bodyOf,
  createDataset,
  queryBody,
} from './dataset.mjs';
import { writeReport } from './report.mjs';
import {
  AS_SHIPPED,
  SHIPPED_NODE_ARGS,
  CONNECTIONS,
  DATABASE_URL,
  DB_NAME,
  PG,
  freePort,
  load,
  post,
  startServer,
  stop,
} from './harness.mjs';
import { clusterCpuMs, cpuMs, peakRssMb, postmasterPid } from './proc.mjs';

const DURATION = Number(process.env.BENCH_DURATION ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SWEEP = [1, 10, 50, 100, 1000];
const here = (path) => new URL(path, import.meta.url).pathname;
const list = (value) =>
  value
    ?.split(',')
    .map((s) => s.trim())
    .filter(Boolean);

const ALL_SERVERS = [
  { key: 'roster', name: 'Roster', script: here('servers/roster.mjs'), env: AS_SHIPPED, execArgv: SHIPPED_NODE_ARGS },
  { key: 'plain', name: 'Plain (Fastify + Mercurius + jit, own SQL)', script: here('servers/plain.mjs') },
  {
    key: 'apollo',
    name: 'Apollo plain (Express 5 + Apollo Server 5, own SQL)',
    script: here('servers/plain-apollo.mjs'),
  },
  {
    key: 'floor',
    name: 'Apollo floor (Express 5 + Apollo Server 5, data from memory)',
    script: here('servers/plain-apollo.mjs'),
    env: { PLAIN_DATA: 'memory' },
  },
  {
    key: 'replay-floor',
    name: 'Replay floor (Express 5, answers kept in a Map)',
    script: here('servers/floor-replay.mjs'),
  },
  { key: 'yoga', name: "GraphQL Yoga on Roster's stores", script: here('servers/yoga.mjs') },
  { key: 'mercurius', name: "Mercurius + jit on Roster's stores", script: here('servers/mercurius.mjs') },
  { key: 'ceiling', name: 'Ceiling (bare http)', script: here('servers/ceiling.mjs') },
];
const ONLY = list(process.env.BENCH_ONLY) ?? ALL_SERVERS.map((s) => s.key);
const SERVERS = ALL_SERVERS.filter((s) => ONLY.includes(s.key));
const WORKLOAD_KEYS = list(process.env.BENCH_WORKLOADS) ?? ['repeated', 'rotating', 'distinct', 'sweep'];
for (const key of ONLY) if (!ALL_SERVERS.some((s) => s.key === key)) throw new Error(`BENCH_ONLY: no server ${key}`);

const SWEEP_BODIES = SWEEP.map((first) => queryBody(SWEEP_SLUG, first));

/** Roster's answers to every body measured: the reference for every server, the ceiling's replies. */
async function rosterAnswers(token, bodies) {
  const probe = await startServer(ALL_SERVERS[0].script, {});
  const answers = {};
  for (const body of bodies) {
    const text = await (await post(probe.url, token, body)).text();
    const { query, variables } = JSON.parse(body);
    const first = Number(/first: (\d+)/.exec(query)[1]);
    const registrants = variables.slug === SWEEP_SLUG ? REGISTRANTS : ROTATING_REGISTRANTS;
    const nodes = text.split('"registrant":').length - 1;
    if (!text.startsWith('{"data":{"event":{"registrations":{"nodes":[') || nodes !== Math.min(first, registrants)) {
      throw new Error(`unexpected answer from Roster to ${body}: ${text.slice(0, 200)}`);
    }
    answers[body] = text;
  }
  await stop(probe.child);
  return answers;
}

async function checkAnswers(server, url, token, bodies, answers) {
  for (const body of bodies) {
    const check = await (await post(url, token, body)).text();
    const expected = answers[body];
    // Byte-identical but for a trailing newline (Apollo ends its JSON with one).
    if (check.trimEnd() !== expected.trimEnd()) {
      const at = [...check].findIndex((c, i) => c !== expected[i]);
      throw new Error(
        `${server.name} answers ${body} differently at ${at}: …${check.slice(at - 40, at + 60)} vs …${expected.slice(at - 40, at + 60)} (${check.length} vs ${expected.length} bytes)`,
      );
    }
  }
}

/** The distinct bodies of a sequence, at most `most` of them spread over it. */
function bodiesOf(sequence, most = Infinity) {
  const bodies = [...new Set(sequence.map(bodyOf))];
  const step = Math.max(1, Math.ceil(bodies.length / most));
  return bodies.filter((_, i) => i % step === 0);
}

/**
 * One measured run: a fresh server process, its answers checked (200 of them at most, in the organizer's
 * token: none the measured viewers ask), 1 s of warm-up, then the load.
 */
async function measure(server, token, sequence, answers, duration, postmaster) {
  const { child, url } = await startServer(
    server.script,
    { ...server.env, ANSWERS_FILE: answersFile },
    server.execArgv,
  );
  try {
    await checkAnswers(server, url, token, bodiesOf(sequence, 200), answers);
    await load(url, token, sequence, 1, { tokens, warmUp: true });
    const cpuBefore = cpuMs(child.pid);
    const dbBefore = postmaster && clusterCpuMs(postmaster);
    const result = await load(url, token, sequence, duration, { tokens });
    const served = result.requests.total;
    return {
      rps: result.requests.average,
      // The server's own CPU per answered request: steadier than req/s on a shared machine.
      cpuMsPerRequest: (cpuMs(child.pid) - cpuBefore) / served,
      dbCpuMsPerRequest: postmaster ? (clusterCpuMs(postmaster) - dbBefore) / served : null,
      p50: result.latency.p50,
      p99: result.latency.p99,
      non2xx: result.non2xx + result.errors,
      rssMb: peakRssMb(child.pid),
    };
  } finally {
    await stop(child);
  }
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const summarize = (name, r) => ({
  name,
  rps: median(r.map((x) => x.rps)),
  p50: median(r.map((x) => x.p50)),
  p99: median(r.map((x) => x.p99)),
  cpuMsPerRequest: median(r.map((x) => x.cpuMsPerRequest)),
  dbCpuMsPerRequest: PG ? median(r.map((x) => x.dbCpuMsPerRequest)) : null,
  rssMb: Math.max(...r.map((x) => x.rssMb)),
  non2xx: r.reduce((n, x) => n + x.non2xx, 0),
});

/**
 * SQL statements Roster runs to compute an answer (a write bumps the data epoch first, so it is not a
 * replay), counted in-process on the same dataset for each page size. A replay runs only the epochs read.
 */
async function statementsPerRequest(token) {
  // The same budget as the benchmarked server: the rounds before have spent any default one.
  const env = {
    NODE_ENV: 'production',
    BASE_URL: 'http://127.0.0.1',
    LOG_LEVEL: 'silent',
    RATE_LIMIT_POINTS: '1000000000',
    DATABASE_URL,
  };
  const config = loadConfig(env, false);
  const db = createDb(DATABASE_URL);
  const roster = await createRoster({ config, db });
  const server = createHttpServer(roster.express);
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${server.address().port}`;
  const counts = {};
  const bodies = [queryBody(CANONICAL_SLUG, 50), ...SWEEP_BODIES];
  for (const body of bodies) {
    const ask = async () => {
      const r = await post(url, token, body);
      const text = await r.text();
      // Only a full answer counts: a refusal (401, 429) would skip the resolvers' statements.
      if (r.status !== 200 || !text.startsWith('{"data":{"event":{"registrations"')) {
        throw new Error(`statement count: unexpected answer ${r.status} ${text.slice(0, 200)}`);
      }
    };
    await ask();
    await db('data_epoch').where({ id: 1 }).increment('value', 1);
    let count = 0;
    // An answer only reads: a write in its window is the background's (the rate limiter's flush, every 100 ms).
    const listener = (query) => (count += /^\s*(insert|update|delete)\b/i.test(query.sql ?? '') ? 0 : 1);
    db.on('query', listener);
    await ask();
    db.off('query', listener);
    counts[body] = count;
  }
  server.close();
  await roster.close();
  await db.destroy();
  return counts;
}

/** `npm start`'s process (node dist/server.js) from spawn to a ready /readyz, on an empty SQLite database. */
async function coldStartMs() {
  const file = '/tmp/roster-bench-cold.sqlite3';
  for (const suffix of ['', '-wal', '-shm']) rmSync(file + suffix, { force: true });
  const port = await freePort();
  const started = performance.now();
  const child = spawn(process.execPath, [...SHIPPED_NODE_ARGS, here('../dist/server.js')], {
    env: {
      ...process.env,
      ...AS_SHIPPED,
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
  const runWorkloads = WORKLOAD_KEYS.filter((k) => k in WORKLOADS);
  const sweepServers = SERVERS.filter((s) => s.key === 'roster' || s.key === 'plain');
  // The machine may be shared: its load average (1 min) when the run started and when it ended.
  const loadAverage = [loadavg()[0]];
  console.log(`dataset: ${DB_NAME}; servers: ${SERVERS.map((s) => s.key).join(', ')}; workloads: ${WORKLOAD_KEYS}`);
  const dataset = await createDataset(DATABASE_URL);
  const { token } = dataset;
  tokens = dataset.tokens;
  const postmaster = PG ? await postmasterPid(DATABASE_URL) : null;

  const allBodies = [...new Set([...Object.values(WORKLOADS).flatMap((w) => bodiesOf(w.sequence)), ...SWEEP_BODIES])];
  const answers = await rosterAnswers(token, allBodies);
  mkdirSync(here('results/tmp'), { recursive: true });
  answersFile = here(`results/tmp/answers-${process.pid}.json`);
  writeFileSync(answersFile, JSON.stringify(answers));

  const runs = {};
  for (let round = 1; round <= ROUNDS; round += 1) {
    for (const workload of runWorkloads) {
      for (const server of SERVERS) {
        const r = await measure(server, token, WORKLOADS[workload].sequence, answers, DURATION, postmaster);
        ((runs[workload] ??= {})[server.name] ??= []).push(r);
        console.log(`round ${round}/${ROUNDS} ${workload} ${server.name}: ${fmt(r.rps)} req/s`);
      }
    }
  }
  const summaries = Object.fromEntries(
    Object.entries(runs).map(([workload, byServer]) => [
      workload,
      Object.entries(byServer).map(([name, r]) => summarize(name, r)),
    ]),
  );

  const statements = SERVERS.some((s) => s.key === 'roster') ? await statementsPerRequest(token) : {};

  // Page-size sweep on the 1,000-registrant event: Roster and the plain peer, alternating, in rounds.
  const sweepRuns = {};
  if (WORKLOAD_KEYS.includes('sweep')) {
    const sweepDuration = Math.max(2, Math.round(DURATION / 2));
    for (let round = 1; round <= ROUNDS; round += 1) {
      for (const [i, first] of SWEEP.entries()) {
        for (const server of sweepServers) {
          const r = await measure(server, token, [SWEEP_BODIES[i]], answers, sweepDuration, postmaster);
          ((sweepRuns[first] ??= {})[server.name] ??= []).push(r);
          console.log(`round ${round}/${ROUNDS} sweep first: ${first} ${server.name}: ${fmt(r.rps)} req/s`);
        }
      }
    }
  }
  const sweep = Object.entries(sweepRuns).map(([first, byServer]) => ({
    first: Number(first),
    statements: statements[queryBody(SWEEP_SLUG, Number(first))],
    servers: Object.entries(byServer).map(([name, r]) => summarize(name, r)),
  }));
  const coldStart = PG ? null : await coldStartMs();

  const machine = `${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${fmt(totalmem() / 2 ** 30, 1)} GiB, Node ${process.version}`;
  const report = {
    date: new Date().toISOString(),
    database: DB_NAME,
    machine,
    duration: DURATION,
    rounds: ROUNDS,
    connections: CONNECTIONS,
    summaries,
    runs,
    sweep,
    sweepRuns,
    statements,
    coldStartMs: coldStart,
    loadAverage: [...loadAverage, loadavg()[0]],
  };
  rmSync(answersFile, { force: true });
  // A subset (BENCH_ONLY, BENCH_WORKLOADS) never replaces the full run's results.
  const subset = process.env.BENCH_ONLY || process.env.BENCH_WORKLOADS;
  // BENCH_RESULTS names a subset kept apart (e.g. `no-repeat`: results/no-repeat-sqlite.*).
  const name = `${process.env.BENCH_RESULTS ?? (subset ? 'tmp/subset' : 'latest')}-${PG ? 'pg' : 'sqlite'}`;
  console.log(`\n${writeReport(here(`results/${name}`), report)}`);
  console.log(`written: bench/results/${name}.json, .md, .svg`);
  // Live streams on the same database (bench/streams.mjs, in a process of its own): not for a subset.
  if (!subset && process.env.BENCH_STREAMS !== '0') await streamsBench();
}

/** bench/streams.mjs's shorter run (two to three minutes): idle streams within the RSS budget, fan-out latency. */
function streamsBench() {
  const child = spawn(process.execPath, [here('streams.mjs')], {
    env: { ...process.env, BENCH_STREAMS_QUICK: '1' },
    stdio: 'inherit',
  });
  return new Promise((resolve, reject) =>
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`bench/streams.mjs exited with ${code}`)))),
  );
}

let answersFile;
/** The no-repeat workload's viewers' tokens (createDataset). */
let tokens;
main().catch((err) => {
  console.error(err);
  process.exit(1);
});
