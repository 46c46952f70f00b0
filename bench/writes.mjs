// `npm run bench:writes`: replayed answers under a steady writer. Roster as shipped on the rotating workload (20
// events), in alternating rounds:
//   quiet   nothing written;
//   writes  a writer adds BENCH_WRITES_PER_SECOND (10) registrations a second to one of the 20 events, from this
//           process, as another instance or the CLI would;
//   and with BENCH_WRITES_BASE (a git ref; SQLite) that build, quiet and under the same writer, on a database of
//   its own made by its own migrations.
// Each registration is a new one (a user of a pool made before the rounds), so every write changes the event.
import { clearInterval, setInterval } from 'node:timers';
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { WORKLOADS, rotatingSlug } from './dataset.mjs';
import {
  AS_SHIPPED,
  SHIPPED_NODE_ARGS,
  CONNECTIONS,
  DATABASE_URL,
  DB_NAME,
  PG,
  fmt,
  median,
  saveRun,
  buildBase,
  load,
  startServer,
  stop,
} from './harness.mjs';
import { cpuMs } from './proc.mjs';
import { createDb } from '../dist/stores/database.js';

const DURATION = Number(process.env.BENCH_DURATION ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const PER_SECOND = Number(process.env.BENCH_WRITES_PER_SECOND ?? 10);
const BASE_REF = process.env.BENCH_WRITES_BASE;
const here = (path) => new URL(path, import.meta.url).pathname;
const sequence = WORKLOADS.rotating.sequence;
/** Writers' users: enough for every round of every variant, each written once. */
const POOL = 5000;

/**
 * A build's own dataset (its dataset.mjs, so its own migrations and triggers) on `url`, with the writer's pool
 * of users and the event it writes to.
 */
async function prepare(datasetModule, url) {
  const { token } = await (await import(datasetModule)).createDataset(url);
  const db = createDb(url);
  const now = Date.now();
  const users = Array.from({ length: POOL }, (_, i) => ({
    uid: `u_writer_${i}`,
    email: `writer${i}@bench.example`,
    email_normalized: `writer${i}@bench.example`,
    email_verified: false,
    name: `Writer ${i}`,
    activation_state: 'active',
    created_at: now,
    updated_at: now,
  }));
  await db.batchInsert('users', users, 500);
  const pool = await db('users').where('uid', 'like', 'u_writer_%').orderBy('id').pluck('id');
  const event = await db('events')
    .where({ slug: rotatingSlug(0) })
    .first('id');
  return { url, token, db, eventId: event.id, pool };
}

/** Adds one registration every 1000 / PER_SECOND ms to the event, from the pool, until stopped. */
function startWriter({ db, eventId, pool }) {
  let written = 0;
  let failed = 0;
  let busy = false;
  const timer = setInterval(() => {
    if (busy) return; // a write slower than the interval is not stacked: the rate drops instead
    const userId = pool.shift();
    if (userId === undefined) throw new Error('bench:writes: the user pool ran out');
    busy = true;
    db('registrations')
      .insert({ event_id: eventId, user_id: userId, created_at: Date.now() })
      .then(
        () => (written += 1),
        () => (failed += 1),
      )
      .finally(() => (busy = false));
  }, 1000 / PER_SECOND);
  return {
    stop: () => {
      clearInterval(timer);
      return { written, failed };
    },
  };
}

async function measure(variant) {
  const { data } = variant;
  const { child, url } = await startServer(
    variant.script,
    { ...AS_SHIPPED, DATABASE_URL: data.url },
    SHIPPED_NODE_ARGS,
  );
  const token = data.token;
  try {
    await load(url, token, sequence, 1, { warmUp: true });
    const writer = variant.writes ? startWriter(data) : undefined;
    const cpuBefore = cpuMs(child.pid);
    const result = await load(url, token, sequence, DURATION);
    const cpu = (cpuMs(child.pid) - cpuBefore) / result.requests.total;
    const { written = 0, failed = 0 } = writer?.stop() ?? {};
    return {
      rps: result.requests.average,
      cpuMsPerRequest: cpu,
      p50: result.latency.p50,
      p99: result.latency.p99,
      non2xx: result.non2xx + result.errors,
      writesPerSecond: written / DURATION,
      writesFailed: failed,
    };
  } finally {
    await stop(child);
  }
}

async function main() {
  if (BASE_REF && PG) throw new Error('BENCH_WRITES_BASE: SQLite only (the base needs a database of its own)');
  const base = BASE_REF ? buildBase(BASE_REF) : undefined;
  const script = here('servers/roster.mjs');
  const data = await prepare(here('dataset.mjs'), DATABASE_URL);
  const baseData =
    base &&
    (await prepare(join(dirname(dirname(base.script)), 'dataset.mjs'), 'sqlite:/tmp/roster-bench-base.sqlite3'));
  const variants = [
    { key: 'quiet', name: 'Roster, nothing written', script, data, writes: false },
    { key: 'writes', name: `Roster, ${PER_SECOND} registrations a second into one event`, script, data, writes: true },
    ...(base
      ? [
          {
            key: 'base-quiet',
            name: `${base.sha}, nothing written`,
            script: base.script,
            data: baseData,
            writes: false,
          },
          {
            key: 'base-writes',
            name: `${base.sha}, ${PER_SECOND} registrations a second`,
            script: base.script,
            data: baseData,
            writes: true,
          },
        ]
      : []),
  ];
  const load0 = loadavg();
  console.log(`${DB_NAME}, rotating, ${PER_SECOND} writes/s; ${variants.map((v) => v.key).join(', ')}; load ${load0}`);

  const runs = Object.fromEntries(variants.map((v) => [v.key, []]));
  for (let round = 1; round <= ROUNDS; round += 1) {
    const order = round % 2 ? variants : [...variants].reverse();
    for (const variant of order) {
      const r = await measure(variant);
      runs[variant.key].push(r);
      console.log(
        `round ${round}/${ROUNDS} ${variant.key}: ${fmt(r.rps)} req/s, ${fmt(r.cpuMsPerRequest, 3)} ms CPU/request, ${fmt(r.writesPerSecond, 1)} writes/s`,
      );
    }
  }
  await data.db.destroy();
  await baseData?.db.destroy();
  // Each round's writing variant against the same build's quiet one in that round, then the median.
  const quietOf = (key) => (key.startsWith('base') ? 'base-quiet' : 'quiet');
  const kept = (key) => median(runs[key].map((r, i) => r.rps / runs[quietOf(key)][i].rps));
  const summary = variants.map((v) => {
    const r = runs[v.key];
    return {
      key: v.key,
      name: v.name,
      rps: median(r.map((x) => x.rps)),
      keptOfQuiet: kept(v.key),
      cpuMsPerRequest: median(r.map((x) => x.cpuMsPerRequest)),
      p50: median(r.map((x) => x.p50)),
      p99: median(r.map((x) => x.p99)),
      writesPerSecond: median(r.map((x) => x.writesPerSecond)),
      writesFailed: r.reduce((n, x) => n + x.writesFailed, 0),
      non2xx: r.reduce((n, x) => n + x.non2xx, 0),
    };
  });
  const machine = `${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, Node ${process.version}`;
  const md = [
    `# Replayed answers under a steady writer (${DB_NAME})`,
    '',
    `${new Date().toISOString()}; ${machine}; load average ${load0.map((n) => n.toFixed(1)).join(', ')} at the start, ${loadavg()
      .map((n) => n.toFixed(1))
      .join(
        ', ',
      )} at the end. Rotating workload (as shipped, replays on), ${CONNECTIONS} connections, ${ROUNDS} alternating rounds of ${DURATION} s; medians. "Kept" is each round's req/s against the same build's, nothing written, in that round (median).`,
    '',
    '| server | req/s | kept of quiet | server CPU ms/request | p50 / p99 ms | writes/s | writes failed | non-2xx |',
    '| ------ | ----: | ------------: | --------------------: | -----------: | -------: | ------------: | ------: |',
    ...summary.map(
      (s) =>
        `| ${s.name} | ${fmt(s.rps)} | ${fmt(s.keptOfQuiet, 2)} | ${fmt(s.cpuMsPerRequest, 3)} | ${s.p50} / ${s.p99} | ${fmt(s.writesPerSecond, 1)} | ${s.writesFailed} | ${s.non2xx} |`,
    ),
    '',
  ].join('\n');
  saveRun('writes', { machine, load0, summary, runs }, md);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
