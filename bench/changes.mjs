// `npm run bench:changes` (SQLite) and `npm run bench:changes:pg` (PostgreSQL): what the change log costs.
//   (a) an import: the built CLI's `roster import` of a generated file (BENCH_IMPORT_REGISTRATIONS registrations,
//       default 1,000,000) into a fresh database, with the change-log triggers as shipped and with them dropped
//       right after migrating (in this benchmark's own throwaway database only), alternating;
//   (b) the feed: `changes(first:)` pages over HTTP against the built server, with an organizer's user token,
//       over a log of BENCH_FEED_CHANGES changes (default 100,000): paging from the start with the cursors
//       returned, and a page filtered by `event:`.
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { clearInterval, setInterval } from 'node:timers';
import pg from 'pg';
import { createDb } from '../dist/stores/database.js';
import { AS_SHIPPED, SHIPPED_NODE_ARGS, DB_NAME, PG, post, startServer, stop } from './harness.mjs';
import { clusterCpuMs, cpuMs, postmasterPid } from './proc.mjs';

const REGISTRATIONS = Number(process.env.BENCH_IMPORT_REGISTRATIONS ?? 1_000_000);
const IMPORT_ROUNDS = Number(process.env.BENCH_IMPORT_ROUNDS ?? 3);
const FEED_CHANGES = Number(process.env.BENCH_FEED_CHANGES ?? 100_000);
const FEED_ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
/** The shape of `npm run data:generate`'s default file (1,000 events, 100,000 users for a million), scaled. */
const EVENTS = Math.max(1, Math.round(REGISTRATIONS / 1000));
const USERS = Math.max(1, Math.round(REGISTRATIONS / 10));
/** The feed's events: registrations are spread over them in turn, as writes to many events interleave. */
const FEED_EVENTS = 100;

const here = (path) => new URL(path, import.meta.url).pathname;
const CLI = here('../dist/cli/index.js');
const TMP = here('results/tmp');

/** The change-log triggers of migration 20261126010000_change_log and their tables (the same on both databases). */
const CHANGE_LOG_TRIGGERS = {
  changes_event_created: 'events',
  changes_event_updated: 'events',
  changes_event_deleted: 'events',
  changes_registration_created: 'registrations',
  changes_registration_deleted: 'registrations',
  changes_registrant_updated: 'users',
};

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const percentile = (xs, p) => [...xs].sort((a, b) => a - b)[Math.max(0, Math.ceil((p / 100) * xs.length) - 1)];
const fmt = (n, digits = 0) =>
  n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const signed = (n) => `${n < 0 ? '−' : '+'}${fmt(Math.abs(n), 1)}`;

/** The URL of this benchmark's own database `name`: a file in /tmp, or a database of the throwaway cluster. */
function databaseUrl(name) {
  if (!PG) return `sqlite:/tmp/roster-bench-${name}.sqlite3`;
  const url = new URL(process.env.TEST_DATABASE_URL);
  url.pathname = `/roster_bench_${name}`;
  return url.toString();
}

/** An empty database `name` (dropped first if a run before left it). */
async function freshDatabase(name) {
  const url = databaseUrl(name);
  if (!PG) {
    for (const suffix of ['', '-wal', '-shm']) rmSync(url.slice('sqlite:'.length) + suffix, { force: true });
    return url;
  }
  const admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS roster_bench_${name} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE roster_bench_${name}`);
  } finally {
    await admin.end();
  }
  return url;
}

/** Peak RSS so far of a running process (Linux), in MB; 0 once it is gone. */
function peakRssMb(pid) {
  try {
    const line = readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmHWM:\s+(\d+) kB/);
    return line ? Number(line[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

/** CPU time (user + system, ms) of this process's children that have ended: the CLI runs, once each is reaped. */
function reapedChildrenCpuMs() {
  const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
  return (Number(fields[13]) + Number(fields[14])) * 10; // Linux ticks are 10 ms
}

/** Runs the built CLI as an operator does (production, the image's NODE_OPTIONS): its stdout, wall time, peak RSS. */
function roster(databaseUrl, args) {
  const started = performance.now();
  const cpuBefore = reapedChildrenCpuMs();
  const child = spawn(process.execPath, [CLI, ...args], {
    env: {
      ...process.env,
      ...AS_SHIPPED,
      NODE_ENV: 'production',
      BASE_URL: 'http://127.0.0.1',
      DATABASE_URL: databaseUrl,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  let rss = 0;
  // VmHWM is gone with the process: read it while it runs.
  const sampler = setInterval(() => (rss = Math.max(rss, peakRssMb(child.pid))), 100);
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => {
      clearInterval(sampler);
      const seconds = (performance.now() - started) / 1000;
      if (code !== 0) reject(new Error(`roster ${args.join(' ')} exited with ${code}: ${stderr.slice(0, 500)}`));
      else resolve({ stdout, seconds, cpuSeconds: (reapedChildrenCpuMs() - cpuBefore) / 1000, peakRssMb: rss });
    });
  });
}

/** Counts rows of a table of the database at url. */
async function countRows(url, table) {
  const db = createDb(url);
  try {
    const [{ n }] = await db(table).count({ n: '*' });
    return Number(n);
  } finally {
    await db.destroy();
  }
}

/** Drops the change-log triggers of a freshly migrated database (this benchmark's own), and checks they are gone. */
async function dropChangeLogTriggers(url) {
  const db = createDb(url);
  try {
    for (const [name, table] of Object.entries(CHANGE_LOG_TRIGGERS)) {
      await db.raw(PG ? `DROP TRIGGER ${name} ON ${table}` : `DROP TRIGGER ${name}`);
    }
    const left = PG
      ? (await db.raw("SELECT tgname AS name FROM pg_trigger WHERE tgname LIKE 'changes\\_%'")).rows
      : await db.raw("SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'changes\\_%' ESCAPE '\\'");
    if (left.length) throw new Error(`change-log triggers left: ${left.map((t) => t.name).join(', ')}`);
  } finally {
    await db.destroy();
  }
}

const VARIANTS = {
  shipped: 'change-log triggers as shipped',
  dropped: 'change-log triggers dropped',
};

/** One import into a fresh database: migrate, (drop the triggers), then `roster import FILE` timed. */
async function importOnce(variant, file, postmaster) {
  const url = await freshDatabase('import');
  await roster(url, ['migrate', '--json']);
  if (variant === 'dropped') await dropChangeLogTriggers(url);
  const dbCpuBefore = postmaster && clusterCpuMs(postmaster);
  const run = await roster(url, ['import', file, '--json']);
  // The backend's CPU reaches the postmaster's reaped children once it has exited.
  if (postmaster) await new Promise((resolve) => setTimeout(resolve, 500));
  const dbCpuSeconds = postmaster ? (clusterCpuMs(postmaster) - dbCpuBefore) / 1000 : null;
  const counts = JSON.parse(run.stdout);
  if (counts.registrations !== REGISTRATIONS)
    throw new Error(`imported ${run.stdout}, not ${REGISTRATIONS} registrations`);
  // Every event and registration recorded as one change each, or none at all.
  const changes = await countRows(url, 'changes');
  const expected = variant === 'shipped' ? EVENTS + REGISTRATIONS : 0;
  if (changes !== expected) throw new Error(`${variant}: ${changes} changes recorded, not ${expected}`);
  return { seconds: run.seconds, cpuSeconds: run.cpuSeconds, dbCpuSeconds, peakRssMb: run.peakRssMb, changes };
}

async function importCost() {
  const file = `${TMP}/changes-import-${REGISTRATIONS}.ndjson`;
  const generate = here('../scripts/generate-data.mjs');
  const shape = ['--events', EVENTS, '--registrations', REGISTRATIONS, '--users', USERS].map(String);
  execFileSync(process.execPath, [generate, ...shape, '--out', file]);
  console.log(`import: ${fmt(USERS)} users, ${fmt(EVENTS)} events, ${fmt(REGISTRATIONS)} registrations`);
  const postmaster = PG ? await postmasterPid(process.env.TEST_DATABASE_URL) : null;
  const runs = { shipped: [], dropped: [] };
  for (let round = 1; round <= IMPORT_ROUNDS; round += 1) {
    // Alternating, and each round in the other order: a drift of the machine falls on both alike.
    const order = round % 2 ? ['shipped', 'dropped'] : ['dropped', 'shipped'];
    for (const variant of order) {
      const r = await importOnce(variant, file, postmaster);
      runs[variant].push(r);
      const db = PG ? `, PostgreSQL ${fmt(r.dbCpuSeconds, 1)} s CPU` : '';
      console.log(
        `round ${round}/${IMPORT_ROUNDS} import, ${VARIANTS[variant]}: ${fmt(r.seconds, 1)} s (CLI ${fmt(r.cpuSeconds, 1)} s CPU${db})`,
      );
    }
  }
  rmSync(file, { force: true });
  const summary = Object.fromEntries(
    Object.entries(runs).map(([variant, r]) => {
      const seconds = r.map((x) => x.seconds);
      return [
        variant,
        {
          min: Math.min(...seconds),
          median: median(seconds),
          max: Math.max(...seconds),
          cpuSeconds: median(r.map((x) => x.cpuSeconds)),
          dbCpuSeconds: PG ? median(r.map((x) => x.dbCpuSeconds)) : null,
          peakRssMb: Math.max(...r.map((x) => x.peakRssMb)),
          changes: r[0].changes,
        },
      ];
    }),
  );
  return { users: USERS, events: EVENTS, registrations: REGISTRATIONS, rounds: IMPORT_ROUNDS, runs, summary };
}

/** The feed's data: an organizer of FEED_EVENTS events, registrations made to them in turn. */
function feedRecords() {
  const perEvent = Math.ceil(FEED_CHANGES / FEED_EVENTS);
  const lines = [{ type: 'user', email: 'organizer@feed.bench', name: 'Feed Organizer' }];
  for (let u = 0; u < perEvent; u += 1)
    lines.push({ type: 'user', email: `r${u}@feed.bench`, name: `Registrant ${u}` });
  for (let e = 0; e < FEED_EVENTS; e += 1) {
    lines.push({ type: 'event', slug: `feed-${e}`, name: `Feed ${e}`, organizers: ['organizer@feed.bench'] });
  }
  for (let i = 0; i < FEED_CHANGES; i += 1) {
    lines.push({
      type: 'registration',
      event: `feed-${i % FEED_EVENTS}`,
      user: `r${Math.floor(i / FEED_EVENTS)}@feed.bench`,
    });
  }
  return lines.map((line) => JSON.stringify(line)).join('\n') + '\n';
}

/** A sync client's page: what each change says, with its registration and registrant now. */
const FEED_QUERY = `query($after: String, $first: Int, $event: String) {
  changes(after: $after, first: $first, event: $event) {
    nodes { cursor type occurredAt eventSlug registration { id } registrant { id name email } }
    pageInfo { endCursor hasNextPage } } }`;

/** Pages from the start with the cursors returned until `hasNextPage` is false (or maxPages): each page's ms. */
async function walk(url, token, { first, event = null, maxPages = Infinity }) {
  const ms = [];
  let after = null;
  let changes = 0;
  for (;;) {
    const body = JSON.stringify({ query: FEED_QUERY, variables: { after, first, event } });
    const started = performance.now();
    const res = await post(url, token, body);
    const text = await res.text();
    ms.push(Math.round((performance.now() - started) * 100) / 100); // to 10 µs
    const json = JSON.parse(text);
    if (res.status !== 200 || json.errors) throw new Error(`feed page: ${res.status} ${text.slice(0, 300)}`);
    const page = json.data.changes;
    changes += page.nodes.length;
    if (!page.pageInfo.hasNextPage || ms.length >= maxPages) return { ms, changes };
    after = page.pageInfo.endCursor;
  }
}

const WALKS = [
  { key: 'all-100', title: 'every change, first: 100', first: 100, expected: FEED_EVENTS + FEED_CHANGES },
  { key: 'all-1000', title: 'every change, first: 1000', first: 1000, expected: FEED_EVENTS + FEED_CHANGES },
  {
    key: 'event-100',
    title: `event: one of ${FEED_EVENTS}, first: 100`,
    first: 100,
    event: 'feed-0',
    expected: 1 + Math.ceil(FEED_CHANGES / FEED_EVENTS),
  },
];

async function feedPageTime() {
  const url = await freshDatabase('feed');
  const file = `${TMP}/changes-feed-${FEED_CHANGES}.ndjson`;
  writeFileSync(file, feedRecords());
  await roster(url, ['import', file, '--json']);
  rmSync(file, { force: true });
  const app = JSON.parse(
    (
      await roster(url, [
        'app',
        'create',
        '--owner',
        'organizer@feed.bench',
        '--name',
        'Feed bench',
        '--redirect-uri',
        'https://bench.example/cb',
        '--json',
      ])
    ).stdout,
  );
  const args = ['token', 'create', '--user', 'organizer@feed.bench', '--client', app.client_id, '--json'];
  const { access_token: token } = JSON.parse((await roster(url, args)).stdout);
  const logged = await countRows(url, 'changes');
  console.log(`feed: ${fmt(logged)} changes in the log, ${FEED_EVENTS} events`);

  const postmaster = PG ? await postmasterPid(url) : null;
  const times = Object.fromEntries(WALKS.map((w) => [w.key, []]));
  // Per round: the server's CPU (and PostgreSQL's) per page of each walk, steadier than the time on a busy machine.
  const cpu = Object.fromEntries(WALKS.map((w) => [w.key, { server: [], db: [] }]));
  for (let round = 1; round <= FEED_ROUNDS; round += 1) {
    // A fresh server each round: no answer of a round before is replayed.
    const { child, url: server } = await startServer(
      here('servers/roster.mjs'),
      { ...AS_SHIPPED, DATABASE_URL: url },
      SHIPPED_NODE_ARGS,
    );
    try {
      // Warm-up with another page size: its answers are never the ones measured.
      await walk(server, token, { first: 99, maxPages: 100 });
      for (const w of WALKS) {
        const [cpuBefore, dbBefore] = [cpuMs(child.pid), postmaster && clusterCpuMs(postmaster)];
        const { ms, changes } = await walk(server, token, w);
        cpu[w.key].server.push((cpuMs(child.pid) - cpuBefore) / ms.length);
        if (postmaster) cpu[w.key].db.push((clusterCpuMs(postmaster) - dbBefore) / ms.length);
        if (changes !== w.expected) throw new Error(`${w.title}: ${changes} changes seen, not ${w.expected}`);
        times[w.key].push(...ms);
        console.log(
          `round ${round}/${FEED_ROUNDS} feed, ${w.title}: ${ms.length} pages, median ${fmt(median(ms), 2)} ms`,
        );
      }
    } finally {
      await stop(child);
    }
  }
  const summary = WALKS.map((w) => ({
    title: w.title,
    pages: times[w.key].length / FEED_ROUNDS,
    changes: w.expected,
    median: median(times[w.key]),
    p95: percentile(times[w.key], 95),
    max: Math.max(...times[w.key]),
    serverCpuMs: median(cpu[w.key].server),
    dbCpuMs: PG ? median(cpu[w.key].db) : null,
  }));
  return { changes: logged, events: FEED_EVENTS, rounds: FEED_ROUNDS, summary, times, cpu };
}

function markdown(report) {
  const { importCost: imp, feed } = report;
  const [shipped, dropped] = [imp.summary.shipped, imp.summary.dropped];
  return [
    `${report.database}; machine: ${report.machine}; load average ${report.loadAverage.map((l) => fmt(l, 1)).join(', ')} (start, after the imports, end); ${report.date}`,
    '',
    `**Import** (\`roster import\`, built CLI, a fresh database each run): ${fmt(imp.users)} users, ${fmt(imp.events)} events, ${fmt(imp.registrations)} registrations; ${imp.rounds} alternating rounds`,
    '',
    `| change log | min s | median s | max s | CLI CPU s |${PG ? ' PostgreSQL CPU s |' : ''} peak RSS MB | changes recorded |`,
    `| --- | ---: | ---: | ---: | ---: |${PG ? ' ---: |' : ''} ---: | ---: |`,
    ...Object.entries(imp.summary).map(
      ([variant, s]) =>
        `| ${VARIANTS[variant]} | ${fmt(s.min, 1)} | ${fmt(s.median, 1)} | ${fmt(s.max, 1)} | ${fmt(s.cpuSeconds, 1)} |${PG ? ` ${fmt(s.dbCpuSeconds, 1)} |` : ''} ${fmt(s.peakRssMb)} | ${fmt(s.changes)} |`,
    ),
    '',
    `Recording the changes: × ${fmt(shipped.median / dropped.median, 2)} the import's time (medians; ${signed(shipped.median - dropped.median)} s); × ${fmt(shipped.cpuSeconds / dropped.cpuSeconds, 2)} the CLI's CPU${PG ? `, × ${fmt(shipped.dbCpuSeconds / dropped.dbCpuSeconds, 2)} PostgreSQL's` : ''}.`,
    '',
    `**Feed pages** (HTTP, built server, an organizer's user token): a log of ${fmt(feed.changes)} changes over ${feed.events} events; ${feed.rounds} rounds, a fresh server each`,
    '',
    `| pages | pages per walk | changes | median ms | p95 ms | max ms | server CPU ms/page |${PG ? ' PostgreSQL CPU ms/page |' : ''}`,
    `| --- | ---: | ---: | ---: | ---: | ---: | ---: |${PG ? ' ---: |' : ''}`,
    ...feed.summary.map(
      (s) =>
        `| ${s.title} | ${fmt(s.pages)} | ${fmt(s.changes)} | ${fmt(s.median, 2)} | ${fmt(s.p95, 2)} | ${fmt(s.max, 1)} | ${fmt(s.serverCpuMs, 2)} |${PG ? ` ${fmt(s.dbCpuMs, 2)} |` : ''}`,
    ),
    '',
  ].join('\n');
}

async function main() {
  mkdirSync(TMP, { recursive: true });
  console.log(`bench:changes on ${DB_NAME}`);
  const report = {
    date: new Date().toISOString(),
    database: DB_NAME,
    machine: `${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${fmt(totalmem() / 2 ** 30, 1)} GiB, Node ${process.version}`,
    // The machine may be shared: its load average (1 min) when each part started and when the run ended.
    loadAverage: [loadavg()[0]],
    importCost: await importCost(),
  };
  report.loadAverage.push(loadavg()[0]);
  report.feed = await feedPageTime();
  report.loadAverage.push(loadavg()[0]);
  const text = markdown(report);
  // Another size than the documented one never replaces the recorded results.
  const documented = REGISTRATIONS === 1_000_000 && FEED_CHANGES === 100_000;
  const name = `${documented ? '' : 'tmp/'}changes-${PG ? 'pg' : 'sqlite'}`;
  writeFileSync(here(`results/${name}.json`), JSON.stringify(report, null, 2) + '\n');
  writeFileSync(here(`results/${name}.md`), text);
  console.log(`\n${text}\nwritten: bench/results/${name}.json, .md`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
