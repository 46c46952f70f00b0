// `npm run bench:streams` (SQLite) and `npm run bench:streams:pg` (PostgreSQL): live streams at one instance.
//   (a) idle streams: /graphql/stream subscriptions opened in steps against the built server (`node
//       dist/server.js`, production), its RSS once each step has settled, and how many fit in an RSS budget;
//   (b) fan-out: BENCH_FANOUT_SUBSCRIBERS open streams (default 1,000) while another process commits
//       registrations at steady rates (BENCH_FANOUT_PASSES, default 1/s for 10 s then 10/s for 20 s): the time
//       from each commit to its arrival at each subscriber, and whether every subscriber got every change once,
//       in order.
// The subscribers run in two load processes of their own (bench/stream-clients.mjs), the writer in a third.
import { fork, spawn } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { Readable } from 'node:stream';
import { clearInterval, setInterval } from 'node:timers';
import pg from 'pg';
import { loadConfig } from '../dist/config.js';
import { createDb, migrate } from '../dist/stores/database.js';
import { createStores } from '../dist/stores/stores.js';
import { createIdentity } from '../dist/oidc/provider.js';
import { NdjsonImporter } from '../dist/services/import/ndjson-import.js';
import { mintAccessToken } from '../dist/oidc/mint-token.js';
import { AS_SHIPPED, SHIPPED_NODE_ARGS, DB_NAME, PG, freePort } from './harness.mjs';
import { clusterCpuMs, cpuMs, postmasterPid } from './proc.mjs';

const list = (value, fallback) =>
  (value ?? fallback)
    .split(',')
    .map((s) => Number(s.trim()))
    .filter((n) => n > 0);
/** `npm run bench`'s shorter run: fewer steps, the 10/s pass alone, a shorter wait; its results go to tmp/. */
const QUICK = process.env.BENCH_STREAMS_QUICK === '1';
const STEPS = list(process.env.BENCH_STREAMS_STEPS, QUICK ? '1000,10000' : '500,1000,2000,5000,10000');
/** No RSS budget is stated for an instance: this one is the benchmark's choice, and said so in the results. */
const BUDGET_MB = Number(process.env.BENCH_RSS_BUDGET_MB ?? 512);
const SUBSCRIBERS = Number(process.env.BENCH_FANOUT_SUBSCRIBERS ?? 1000);
/** The fan-out's passes, one after the other on the same streams: changes per second × seconds. */
const PASSES = (process.env.BENCH_FANOUT_PASSES ?? (QUICK ? '10x20' : '1x10,10x20')).split(',').map((pass) => {
  const [perSecond, seconds] = pass.split('x').map(Number);
  return { perSecond, seconds, changes: perSecond * seconds };
});
/** Changes sent first and not counted (the server's code is still cold), each awaited by every stream. */
const WARMUP = 5;
const CHANGES = WARMUP + PASSES.reduce((n, p) => n + p.changes, 0);
/** How long a pass waits, after its last commit, for every stream to have every change. */
const DRAIN_MS = Number(process.env.BENCH_FANOUT_DRAIN_S ?? (QUICK ? 20 : 120)) * 1000;
const LOADERS = 2;
/** STREAMS_PER_OWNER as shipped: each token holds at most this many streams, so there are many owners. */
const PER_OWNER = 10;
/** STREAMS_MAX as shipped; raised only when asked for more streams than that. */
const STREAMS_MAX = Math.max(10_000, ...STEPS, SUBSCRIBERS);
/** Which parts run (a comma list of `idle`, `fanout`); both by default. */
const PARTS = (process.env.BENCH_STREAMS_PARTS ?? 'idle,fanout').split(',').map((s) => s.trim());
/** A directory for the server's CPU profiles (node --cpu-prof), to see where its time goes; none by default. */
const PROFILE_DIR = process.env.BENCH_STREAMS_PROFILE;
/** The API probe's tokens, taken in turn: owners of their own, whose budgets a long run does not spend. */
const PROBE_TOKENS = 4;
/** Stream requests each load process has in flight while opening a step. */
const OPENING_CONCURRENCY = 25;

const here = (path) => new URL(path, import.meta.url).pathname;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const now = () => Number(process.hrtime.bigint()) / 1e6;
const fmt = (n, digits = 0) =>
  n === null || n === undefined || Number.isNaN(n)
    ? '–'
    : n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const percentile = (sorted, p) => sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)];

/** A check-in screen's subscription: each registration to one event, with its registrant's name. */
const SUBSCRIPTION = `subscription($event: String) {
  changes(event: $event) { cursor type occurredAt eventSlug registration { id } registrant { id name } } }`;
const EVENT = 'live';
const BODY = JSON.stringify({ query: SUBSCRIPTION, variables: { event: EVENT } });

/** Current RSS of a process (Linux), in MB. */
function rssMb(pid) {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmRSS:\s+(\d+) kB/);
  return Number(line[1]) / 1024;
}

/** This benchmark's own database: a file in /tmp, or a database of the throwaway cluster (dropped first). */
async function freshDatabase() {
  if (!PG) {
    const file = '/tmp/roster-bench-streams.sqlite3';
    for (const suffix of ['', '-wal', '-shm']) rmSync(file + suffix, { force: true });
    return `sqlite:${file}`;
  }
  const admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
  await admin.connect();
  try {
    await admin.query('DROP DATABASE IF EXISTS roster_bench_streams WITH (FORCE)');
    await admin.query('CREATE DATABASE roster_bench_streams');
  } finally {
    await admin.end();
  }
  const url = new URL(process.env.TEST_DATABASE_URL);
  url.pathname = '/roster_bench_streams';
  return url.toString();
}

/**
 * An organizer's event, the registrants the writer will register, and one token per PER_OWNER streams: the
 * organizer's user token for each of as many apps (the owner of a user token is the user and the app).
 */
async function createDataset(url, streams) {
  const db = createDb(url);
  await migrate(db);
  const stores = createStores(db);
  const lines = [{ type: 'user', email: 'organizer@streams.bench', name: 'Stream Organizer' }];
  for (let i = 0; i < CHANGES; i += 1)
    lines.push({ type: 'user', email: `r${i}@streams.bench`, name: `Live Registrant ${i}` });
  lines.push({ type: 'event', slug: EVENT, name: 'Live', organizers: ['organizer@streams.bench'] });
  await new NdjsonImporter(stores).run(Readable.from([lines.map((l) => JSON.stringify(l)).join('\n') + '\n']));
  const organizer = await stores.users.findByEmail('organizer@streams.bench');
  const event = await stores.events.findBySlug(EVENT);
  const userIds = [];
  for (let i = 0; i < CHANGES; i += 1) userIds.push((await stores.users.findByEmail(`r${i}@streams.bench`)).id);
  const config = loadConfig({ NODE_ENV: 'production', BASE_URL: 'http://127.0.0.1', DATABASE_URL: url }, false);
  const { provider } = await createIdentity({ config, stores });
  const tokens = [];
  for (let i = 0; i < Math.ceil(streams / PER_OWNER) + PROBE_TOKENS; i += 1) {
    const { app } = await stores.apps.create({
      ownerId: organizer.id,
      name: `Check-in screen ${i}`,
      redirectUris: ['https://streams.bench.example/cb'],
    });
    const { access_token: token } = await mintAccessToken(provider, {
      accountId: organizer.uid,
      clientId: app.clientId,
      scope: 'openid profile',
    });
    tokens.push(token);
  }
  await db.destroy();
  return { eventId: event.id, userIds, tokens: tokens.slice(PROBE_TOKENS), probeTokens: tokens.slice(0, PROBE_TOKENS) };
}

// Processes still running when this one exits (a failed check, Ctrl-C) go with it.
const running = new Set();
process.on('exit', () => running.forEach((child) => child.kill('SIGKILL')));
process.on('SIGINT', () => process.exit(130));
const track = (child) => {
  running.add(child);
  child.once('exit', () => running.delete(child));
  return child;
};

/** `npm start`'s process as the image runs it (production, NODE_OPTIONS), on a loopback port, once /readyz answers. */
async function startRoster(databaseUrl) {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const child = track(
    spawn(process.execPath, [...SHIPPED_NODE_ARGS, here('../dist/server.js')], {
      env: {
        ...process.env,
        ...AS_SHIPPED,
        ...(PROFILE_DIR ? { NODE_OPTIONS: `${AS_SHIPPED.NODE_OPTIONS} --cpu-prof --cpu-prof-dir=${PROFILE_DIR}` } : {}),
        NODE_ENV: 'production',
        PORT: String(port),
        HOST: '127.0.0.1',
        BASE_URL: base,
        DATABASE_URL: databaseUrl,
        STREAMS_MAX: String(STREAMS_MAX),
      },
      // Its request log (one JSON line per stream) goes to /dev/null, as to a collector's pipe.
      stdio: ['ignore', 'ignore', 'inherit'],
    }),
  );
  const exited = new Promise((_, reject) => child.once('exit', (code) => reject(new Error(`server exited (${code})`))));
  for (;;) {
    const ok = await Promise.race([
      fetch(`${base}/readyz`).then(
        (r) => r.ok,
        () => false,
      ),
      exited,
    ]);
    if (ok) return { child, url: base };
    await sleep(50);
  }
}

async function stopProcess(child, signal = 'SIGKILL') {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill(signal);
  await exited;
}

/** The server ends at once, or, profiled, on SIGINT (no shutdown delay), so that it writes its profile. */
const stopServer = (child) => stopProcess(child, PROFILE_DIR ? 'SIGINT' : 'SIGKILL');

/** The server's own figures from /metrics: streams open, V8 heap used (MB), open file descriptors. */
async function serverMetrics(url) {
  const text = await (await fetch(`${url}/metrics`)).text();
  const value = (name) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
  return {
    streams: value('roster_live_streams'),
    heapMb: value('nodejs_heap_size_used_bytes') / 2 ** 20,
    fds: value('process_open_fds'),
  };
}

/** A load process, with a way to ask it something and wait for its answer. */
async function startLoader() {
  const child = track(fork(here('stream-clients.mjs'), { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] }));
  await new Promise((resolve) => child.once('message', resolve));
  const ask = (msg) =>
    new Promise((resolve) => {
      const answer = (reply) => {
        if (reply.cmd !== msg.cmd && !(msg.cmd === 'open' && reply.cmd === 'opened')) return;
        child.off('message', answer);
        resolve(reply);
      };
      child.on('message', answer);
      child.send(msg);
    });
  return { child, ask };
}

/** Opens streams from..to-1 across the loaders (stream k with token ⌊k / PER_OWNER⌋): streams opened, refusals. */
async function openStreams(loaders, url, tokens, from, to) {
  const portions = loaders.map(() => []);
  for (let k = from; k < to; k += 1) portions[k % loaders.length].push(tokens[Math.floor(k / PER_OWNER)]);
  const replies = await Promise.all(
    loaders.map((l, i) =>
      l.ask({ cmd: 'open', url, tokens: portions[i], body: BODY, concurrency: OPENING_CONCURRENCY }),
    ),
  );
  const refused = {};
  for (const r of replies)
    for (const [status, n] of Object.entries(r.refused)) refused[status] = (refused[status] ?? 0) + n;
  return { opened: replies.reduce((n, r) => n + r.opened, 0), refused };
}

/** Waits until the server's RSS holds still: every sample of the last 3 s within 1 % (at most 20 s). */
async function settledRss(pid) {
  const samples = [];
  const started = now();
  for (;;) {
    samples.push(rssMb(pid));
    const last = samples.slice(-6);
    if (last.length === 6 && Math.max(...last) - Math.min(...last) <= 0.01 * Math.min(...last)) break;
    if (now() - started > 20_000) break;
    await sleep(500);
  }
  return { rssMb: samples.at(-1), settleSeconds: (now() - started) / 1000 };
}

/** Least-squares line through (streams, RSS): MB per stream and the RSS at none. */
function fit(points) {
  const n = points.length;
  const mx = points.reduce((s, p) => s + p.streams, 0) / n;
  const my = points.reduce((s, p) => s + p.rssMb, 0) / n;
  const sxx = points.reduce((s, p) => s + (p.streams - mx) ** 2, 0);
  const sxy = points.reduce((s, p) => s + (p.streams - mx) * (p.rssMb - my), 0);
  const slope = sxy / sxx;
  return { mbPerStream: slope, interceptMb: my - slope * mx };
}

async function idleStreams(url, tokens) {
  const server = await startRoster(url);
  const loaders = [await startLoader(), await startLoader()];
  try {
    await sleep(2000);
    const baseline = { streams: 0, ...(await settledRss(server.child.pid)), ...(await serverMetrics(server.url)) };
    console.log(`idle: no streams, RSS ${fmt(baseline.rssMb)} MB`);
    const steps = [];
    let open = 0;
    for (const target of STEPS) {
      const cpuBefore = cpuMs(server.child.pid);
      const started = now();
      const { opened, refused } = await openStreams(loaders, server.url, tokens, open, target);
      const openSeconds = (now() - started) / 1000;
      const openCpuMs = cpuMs(server.child.pid) - cpuBefore;
      const added = target - open;
      open += opened;
      const settled = await settledRss(server.child.pid);
      const metrics = await serverMetrics(server.url);
      // Idle: what the open streams cost while nothing changes (heartbeats every 12 s, the log polled), over a
      // full heartbeat period at the last step.
      const windowMs = target === STEPS.at(-1) ? 12_000 : 3000;
      const idleBefore = cpuMs(server.child.pid);
      await sleep(windowMs);
      const idleCpuPercent = ((cpuMs(server.child.pid) - idleBefore) / windowMs) * 100;
      const status = await Promise.all(loaders.map((l) => l.ask({ cmd: 'status' })));
      const step = {
        streams: target,
        opened: open,
        refused,
        openSeconds,
        openCpuMsPerStream: openCpuMs / added,
        ...settled,
        heapMb: metrics.heapMb,
        fds: metrics.fds,
        serverStreams: metrics.streams,
        clientOpen: status.reduce((n, s) => n + s.open, 0),
        heartbeats: status.reduce((n, s) => n + s.comments, 0),
        idleCpuPercent,
        idleWindowMs: windowMs,
      };
      if (step.serverStreams !== open || step.clientOpen !== open) {
        throw new Error(
          `idle: ${open} streams opened, the server counts ${step.serverStreams}, the clients ${step.clientOpen}`,
        );
      }
      steps.push(step);
      console.log(
        `idle: ${fmt(target)} streams (${fmt(step.clientOpen)} open at the clients, ${fmt(step.serverStreams)} at the server${Object.keys(refused).length ? `, refused ${JSON.stringify(refused)}` : ''}): RSS ${fmt(step.rssMb)} MB, heap ${fmt(step.heapMb)} MB, opened in ${fmt(openSeconds, 1)} s, idle CPU ${fmt(idleCpuPercent, 1)} %`,
      );
      if (open < target) break; // refused: the instance holds no more
    }
    const line = fit([baseline, ...steps]);
    const within = steps.filter((s) => s.rssMb <= BUDGET_MB);
    return {
      budgetMb: BUDGET_MB,
      streamsMax: STREAMS_MAX,
      perOwner: PER_OWNER,
      baseline,
      steps,
      kbPerStream: line.mbPerStream * 1024,
      interceptMb: line.interceptMb,
      // The largest step measured that stayed within the budget, and the line's (not measured) crossing of it.
      measuredWithinBudget: within.length ? within.at(-1).streams : 0,
      allStepsWithinBudget: within.length === steps.length,
      extrapolatedWithinBudget: Math.floor((BUDGET_MB - line.interceptMb) / line.mbPerStream),
    };
  } finally {
    for (const l of loaders) await stopProcess(l.child);
    await stopServer(server.child);
  }
}

const stats = (xs) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return {
    p50: percentile(sorted, 50),
    p95: percentile(sorted, 95),
    p99: percentile(sorted, 99),
    max: sorted.at(-1),
    mean: sorted.reduce((a, b) => a + b, 0) / sorted.length,
  };
};

/** An API request beside the streams: an organizer's page of the event's registrations, computed afresh. */
const PROBE = JSON.stringify({
  query: 'query($slug: String!) { event(slug: $slug) { registrations(first: 10) { nodes { registrant { name } } } } }',
  variables: { slug: EVENT },
});

/** Asks /graphql (or, without tokens, /healthz) every 500 ms until stopped: each answer's time (ms), the last cut off. */
function probe(url, tokens) {
  const request = (i, signal) =>
    tokens
      ? fetch(`${url}/graphql`, {
          method: 'POST',
          headers: {
            Authorization: `Bearer ${tokens[i % tokens.length]}`,
            'Content-Type': 'application/json',
            Accept: 'application/json',
          },
          body: PROBE,
          signal,
        }).then(async (r) => r.status === 200 && !(await r.json()).errors)
      : fetch(`${url}/healthz`, { signal }).then((r) => r.ok);
  const ms = [];
  let failed = 0;
  let running = true;
  let unanswered = null;
  const controller = new globalThis.AbortController();
  const done = (async () => {
    while (running) {
      const started = now();
      const ok = await request(ms.length, controller.signal).catch(() => false);
      if (controller.signal.aborted) {
        unanswered = now() - started;
        return;
      }
      ms.push(now() - started);
      if (!ok) failed += 1;
      await sleep(500);
    }
  })();
  return async () => {
    running = false;
    controller.abort();
    await done;
    // The cut-off request's wait so far counts too: it took at least that long.
    if (unanswered !== null) ms.push(unanswered);
    return { requests: ms.length, failed, unanswered: unanswered !== null, ms: stats(ms) };
  };
}

/** Waits until every stream has the first `count` changes, or `ms` have passed: how many streams have. */
async function received(loaders, count, ms) {
  const deadline = now() + ms;
  for (;;) {
    const replies = await Promise.all(loaders.map((l) => l.ask({ cmd: 'received', count })));
    const streams = replies.reduce((n, r) => n + r.streams, 0);
    if (streams >= SUBSCRIBERS || now() > deadline) return streams;
    await sleep(100);
  }
}

/** What each stream received of changes [from, to): commit → receipt of each pair, and per change. */
function passFigures(reports, writes, from, to) {
  const latencies = [];
  const sentLatencies = [];
  const firstArrival = new Array(to - from).fill(Infinity);
  const lastArrival = new Array(to - from).fill(-Infinity);
  const arrivals = new Array(to - from).fill(0);
  for (const s of reports) {
    // Only a stream's changes in order count: the k-th change it received must be change k.
    for (let k = from; k < Math.min(to, s.changes.length) && s.changes[k] === k; k += 1) {
      const at = s.times[k];
      latencies.push(at - writes[k].committed);
      sentLatencies.push(at - writes[k].sent);
      firstArrival[k - from] = Math.min(firstArrival[k - from], at);
      lastArrival[k - from] = Math.max(lastArrival[k - from], at);
      arrivals[k - from] += 1;
    }
  }
  // Per change that reached every subscriber: until the last one had it, and its first-to-last spread.
  const everywhere = [];
  for (let i = 0; i < to - from; i += 1) if (arrivals[i] === reports.length) everywhere.push(i);
  return {
    pairs: latencies.length,
    expectedPairs: reports.length * (to - from),
    lastArrivalAt: Math.max(...lastArrival),
    latencyMs: stats(latencies),
    withinOneSecond: latencies.filter((x) => x <= 1000).length / latencies.length,
    sentLatencyMs: stats(sentLatencies),
    changesEverywhere: everywhere.length,
    lastSubscriberMs: everywhere.length
      ? stats(everywhere.map((i) => lastArrival[i] - writes[from + i].committed))
      : null,
    spreadMs: everywhere.length ? stats(everywhere.map((i) => lastArrival[i] - firstArrival[i])) : null,
    writeMs: stats(writes.slice(from, to).map((w) => w.committed - w.sent)),
  };
}

/** Each stream's changes exactly 0, 1, 2, …: once each, in order, SSE ids rising, nothing else. */
function deliveryCheck(reports, expected) {
  const check = { complete: 0, missing: 0, duplicates: 0, outOfOrder: 0, errors: 0, idsNotRising: 0, ended: 0 };
  for (const s of reports) {
    const seen = new Set();
    let inOrder = true;
    for (const [k, index] of s.changes.entries()) {
      if (seen.has(index)) check.duplicates += 1;
      if (index !== k) inOrder = false;
      seen.add(index);
    }
    check.missing += expected - seen.size;
    if (!inOrder) check.outOfOrder += 1;
    if (!s.idsRising) check.idsNotRising += 1;
    if (s.ended) check.ended += 1;
    check.errors += s.errors;
    if (inOrder && s.changes.length === expected && !s.errors) check.complete += 1;
  }
  return check;
}

async function fanOut(url, tokens, probeTokens, eventId, userIds) {
  const server = await startRoster(url);
  const loaders = [await startLoader(), await startLoader()];
  const writer = track(fork(here('stream-writer.mjs'), { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] }));
  const postmaster = PG ? await postmasterPid(url) : null;
  try {
    await new Promise((resolve) => writer.once('message', resolve));
    const write = (from, to, perSecond) =>
      new Promise((resolve) => {
        writer.once('message', (m) => resolve(m.writes));
        writer.send({ cmd: 'write', eventId, userIds: userIds.slice(from, to), perSecond });
      });
    writer.send({ cmd: 'connect', databaseUrl: url });
    const openStarted = now();
    const { opened, refused } = await openStreams(loaders, server.url, tokens, 0, SUBSCRIBERS);
    if (opened !== SUBSCRIBERS)
      throw new Error(`fan-out: ${opened} of ${SUBSCRIBERS} streams opened (${JSON.stringify(refused)})`);
    console.log(`fan-out: ${fmt(SUBSCRIBERS)} streams open in ${fmt((now() - openStarted) / 1000, 1)} s`);
    const stopQuiet = [probe(server.url, probeTokens), probe(server.url)];
    await sleep(3000);
    const [quietProbe, quietHealth] = await Promise.all(stopQuiet.map((stop) => stop()));
    const writes = await write(0, WARMUP, WARMUP);
    if ((await received(loaders, WARMUP, DRAIN_MS)) < SUBSCRIBERS)
      throw new Error('fan-out: the warm-up changes did not reach every stream');
    const cpu = () => ({
      server: cpuMs(server.child.pid),
      loaders: loaders.reduce((n, l) => n + cpuMs(l.child.pid), 0),
      db: postmaster ? clusterCpuMs(postmaster) : null,
    });
    const passes = [];
    let from = WARMUP;
    for (const pass of PASSES) {
      const to = from + pass.changes;
      const cpuBefore = cpu();
      const started = now();
      const rssBefore = rssMb(server.child.pid);
      let rssPeak = rssBefore;
      const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, rssMb(server.child.pid))), 250);
      const stopProbes = [probe(server.url, probeTokens), probe(server.url)];
      console.log(`fan-out: ${pass.changes} registrations at ${pass.perSecond}/s`);
      writes.push(...(await write(from, to, pass.perSecond)));
      const streamsComplete = await received(loaders, to, DRAIN_MS);
      const drainedMs = now() - writes[to - 1].committed;
      clearInterval(sampler);
      const cpuAfter = cpu();
      const elapsedMs = now() - started;
      const reports = (await Promise.all(loaders.map((l) => l.ask({ cmd: 'report' })))).flatMap((r) => r.streams);
      const [apiProbe, healthProbe] = await Promise.all(stopProbes.map((stop) => stop()));
      const figures = passFigures(reports, writes, from, to);
      const serverMs = cpuAfter.server - cpuBefore.server;
      const result = {
        ...pass,
        subscribers: SUBSCRIBERS,
        ...figures,
        streamsComplete,
        // After the last commit, until every stream had every change (or the wait gave up).
        drainedMs,
        drained: streamsComplete >= SUBSCRIBERS,
        // Deliveries made from the pass's first commit to its last arrival: what the instance kept up with.
        deliveriesPerSecond: (figures.pairs / (figures.lastArrivalAt - writes[from].sent)) * 1000,
        demandPerSecond: pass.perSecond * SUBSCRIBERS,
        serverCpuMsPerChange: serverMs / pass.changes,
        serverCpuUsPerDelivery: (serverMs / figures.pairs) * 1000,
        serverCpuPercent: (serverMs / elapsedMs) * 100,
        loadersCpuMsPerChange: (cpuAfter.loaders - cpuBefore.loaders) / pass.changes,
        dbCpuMsPerChange: PG ? (cpuAfter.db - cpuBefore.db) / pass.changes : null,
        rssBeforeMb: rssBefore,
        rssPeakMb: rssPeak,
        apiProbe,
        healthProbe,
      };
      passes.push(result);
      console.log(
        `fan-out at ${pass.perSecond}/s: commit → receipt p50 ${fmt(result.latencyMs.p50, 1)} ms, p99 ${fmt(result.latencyMs.p99, 1)} ms, max ${fmt(result.latencyMs.max, 1)} ms; ${fmt(figures.pairs)} of ${fmt(figures.expectedPairs)} pairs, every stream had every change ${result.drained ? `${fmt(drainedMs / 1000, 1)} s after the last commit` : `not within ${DRAIN_MS / 1000} s`}; server CPU ${fmt(result.serverCpuUsPerDelivery)} µs per delivery`,
      );
      from = to;
    }
    const reports = (await Promise.all(loaders.map((l) => l.ask({ cmd: 'report' })))).flatMap((r) => r.streams);
    const check = deliveryCheck(reports, CHANGES);
    console.log(
      `fan-out: ${check.complete} of ${SUBSCRIBERS} streams had all ${CHANGES} changes (duplicates ${check.duplicates}, streams out of order ${check.outOfOrder}, errors ${check.errors}, streams ended ${check.ended}, still queued ${check.missing})`,
    );
    return {
      subscribers: SUBSCRIBERS,
      warmup: WARMUP,
      changes: CHANGES,
      drainLimitMs: DRAIN_MS,
      quietProbe,
      quietHealth,
      passes,
      check,
    };
  } finally {
    writer.kill('SIGKILL');
    for (const l of loaders) await stopProcess(l.child);
    await stopServer(server.child);
  }
}

function idleMarkdown(idle) {
  const step = (s) =>
    `| ${fmt(s.streams)} | ${fmt(s.rssMb)} | ${s.streams ? fmt(s.rssMb - idle.baseline.rssMb) : '–'} | ${s.streams ? fmt(((s.rssMb - idle.baseline.rssMb) * 1024) / s.streams, 1) : '–'} | ${fmt(s.heapMb)} | ${s.streams ? fmt(s.openSeconds, 1) : '–'} | ${s.streams ? fmt(s.openCpuMsPerStream, 2) : '–'} | ${s.streams ? fmt(s.idleCpuPercent, 1) : '–'} |`;
  const top = idle.steps.at(-1);
  const budget = idle.allStepsWithinBudget
    ? `every step measured is within it: ${fmt(top.streams)} streams at ${fmt(top.rssMb)} MB${top.streams >= idle.streamsMax ? ` (STREAMS_MAX, ${fmt(idle.streamsMax)} as shipped, refuses more)` : ''}`
    : `the largest step within it: ${fmt(idle.measuredWithinBudget)} streams`;
  return [
    `**Idle streams**: opened in steps, ${OPENING_CONCURRENCY * LOADERS} requests in flight; RSS once it holds still (3 s within 1 %); idle CPU over 3 s (${fmt(top.idleWindowMs / 1000)} s, one heartbeat period, at the last step)`,
    '',
    '| streams | server RSS MB | over none MB | KB per stream | V8 heap used MB | opened in s | server CPU ms per open | idle CPU % |',
    '| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    step(idle.baseline),
    ...idle.steps.map(step),
    '',
    `RSS per stream (least-squares line through the steps): ${fmt(idle.kbPerStream, 1)} KB, over ${fmt(idle.interceptMb)} MB with none. RSS budget ${fmt(idle.budgetMb)} MB (the benchmark's choice; no budget is stated): ${budget}; the line reaches the budget at about ${fmt(idle.extrapolatedWithinBudget)} streams (extrapolated, not measured).`,
    '',
  ];
}

function fanOutMarkdown(f, pg) {
  const ms = (x) => fmt(x, 1);
  const row = (name, s) =>
    s
      ? `| ${name} | ${ms(s.p50)} | ${ms(s.p95)} | ${ms(s.p99)} | ${ms(s.max)} | ${ms(s.mean)} |`
      : `| ${name} | – | – | – | – | – |`;
  const c = f.check;
  return [
    `**Fan-out**: ${fmt(f.subscribers)} open streams; another process commits registrations to the event at a steady rate, in passes one after the other on the same streams (after ${f.warmup} not counted); every (change, subscriber) pair timed from the write's commit to the event's arrival at the subscriber (one monotonic clock for all processes); each pass waits up to ${fmt(f.drainLimitMs / 1000)} s after its last commit for every stream to have every change`,
    '',
    ...f.passes.flatMap((p) => [
      `_${p.perSecond} a second for ${p.seconds} s (${p.changes} changes, ${fmt(p.expectedPairs)} pairs)_: ${p.drained ? `every stream had every change ${fmt(p.drainedMs / 1000, 1)} s after the last commit` : `**not every stream had every change ${fmt(f.drainLimitMs / 1000)} s after the last commit** (${fmt(p.pairs)} of ${fmt(p.expectedPairs)} pairs arrived; the rest were still queued)`}; ${fmt(p.withinOneSecond * 100, 1)} % of the pairs that arrived took at most 1 s; ${fmt(p.deliveriesPerSecond)} deliveries/s made (from the first commit to the last arrival) of the ${fmt(p.demandPerSecond)}/s written (subscribers × rate); server CPU ${fmt(p.serverCpuMsPerChange, 1)} ms per change, ${fmt(p.serverCpuUsPerDelivery)} µs per delivery, ${fmt(p.serverCpuPercent)} % of a core over the pass${pg ? `; PostgreSQL ${fmt(p.dbCpuMsPerChange, 1)} ms per change` : ''}; the load processes ${fmt(p.loadersCpuMsPerChange, 1)} ms per change; server RSS ${fmt(p.rssBeforeMb)} MB before, ${fmt(p.rssPeakMb)} MB at most`,
      '',
      '| | p50 ms | p95 ms | p99 ms | max ms | mean ms |',
      '| --- | ---: | ---: | ---: | ---: | ---: |',
      row(`commit → receipt, ${fmt(p.pairs)} pairs`, p.latencyMs),
      row('write sent → receipt', p.sentLatencyMs),
      row(`commit → its last subscriber, per change (${p.changesEverywhere} that reached all)`, p.lastSubscriberMs),
      row('first to last subscriber, per change', p.spreadMs),
      row('the write itself (sent → committed)', p.writeMs),
      row(
        `an API request meanwhile (${p.apiProbe.requests}, ${p.apiProbe.failed} failed${p.apiProbe.unanswered ? ', the last one unanswered when the pass ended: its wait so far' : ''})`,
        p.apiProbe.ms,
      ),
      row(
        `/healthz meanwhile (${p.healthProbe.requests}, ${p.healthProbe.failed} failed${p.healthProbe.unanswered ? ', the last one unanswered when the pass ended: its wait so far' : ''})`,
        p.healthProbe.ms,
      ),
      '',
    ]),
    `The API request (an organizer's page of 10 registrations of the event, every 500 ms, tokens of its own) with the streams open and nothing changing: p50 ${fmt(f.quietProbe.ms.p50, 1)} ms, max ${fmt(f.quietProbe.ms.max, 1)} ms (${f.quietProbe.requests} requests, ${f.quietProbe.failed} failed); /healthz p50 ${fmt(f.quietHealth.ms.p50, 1)} ms, max ${fmt(f.quietHealth.ms.max, 1)} ms.`,
    '',
    `Delivery over the run (${f.changes} changes to ${fmt(f.subscribers)} streams): ${c.duplicates || c.outOfOrder || c.idsNotRising || c.errors || c.ended ? '**faults**' : 'every change that arrived, arrived once and in order'} (duplicates ${fmt(c.duplicates)}, streams out of order ${fmt(c.outOfOrder)}, SSE ids not rising ${fmt(c.idsNotRising)}, errors ${fmt(c.errors)}, streams ended ${fmt(c.ended)}); ${fmt(c.complete)} streams had every change when the run stopped, ${fmt(c.missing)} deliveries were still queued.`,
    '',
  ];
}

function markdown(r) {
  return [
    `${r.database}; machine: ${r.machine}; load average ${r.loadAverage.map((l) => fmt(l, 1)).join(', ')} (start, after the idle streams, end); ${r.date}`,
    '',
    `One Roster process (\`node dist/server.js\`, NODE_ENV=production, the image's NODE_OPTIONS); the subscribers in ${LOADERS} load processes on the same machine (node:http, one socket per stream), ${PER_OWNER} streams per token (STREAMS_PER_OWNER as shipped), each a check-in screen's \`changes(event:)\` with the registration and the registrant's name.`,
    '',
    ...(r.idle ? idleMarkdown(r.idle) : []),
    ...(r.fanOut ? fanOutMarkdown(r.fanOut, r.database === 'PostgreSQL') : []),
  ].join('\n');
}

async function main() {
  console.log(`bench:streams on ${DB_NAME}`);
  const report = {
    date: new Date().toISOString(),
    database: DB_NAME,
    machine: `${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${fmt(totalmem() / 2 ** 30, 1)} GiB, Node ${process.version}`,
    loadAverage: [loadavg()[0]],
    subscription: SUBSCRIPTION,
  };
  const url = await freshDatabase();
  const streams = Math.max(...STEPS, SUBSCRIBERS);
  const { eventId, userIds, tokens, probeTokens } = await createDataset(url, streams);
  console.log(`dataset: ${tokens.length} tokens (${PER_OWNER} streams each), ${CHANGES} registrants to register`);
  if (PARTS.includes('idle')) report.idle = await idleStreams(url, tokens);
  report.loadAverage.push(loadavg()[0]);
  if (PARTS.includes('fanout')) report.fanOut = await fanOut(url, tokens, probeTokens, eventId, userIds);
  report.loadAverage.push(loadavg()[0]);
  const text = markdown(report);
  // Another size than the documented one never replaces the recorded results.
  const documented =
    !QUICK &&
    !process.env.BENCH_STREAMS_STEPS &&
    !process.env.BENCH_FANOUT_SUBSCRIBERS &&
    !process.env.BENCH_FANOUT_PASSES &&
    !process.env.BENCH_FANOUT_DRAIN_S &&
    !process.env.BENCH_RSS_BUDGET_MB &&
    !process.env.BENCH_STREAMS_PARTS &&
    !PROFILE_DIR;
  const name = `${documented ? '' : 'tmp/'}streams-${QUICK ? 'quick-' : ''}${PG ? 'pg' : 'sqlite'}`;
  mkdirSync(here('results/tmp'), { recursive: true });
  writeFileSync(here(`results/${name}.json`), JSON.stringify(report, null, 2) + '\n');
  writeFileSync(here(`results/${name}.md`), text);
  console.log(`\n${text}\nwritten: bench/results/${name}.json, .md`);
}

// `node bench/streams.mjs bench/results/streams-sqlite.json` writes its tables again (the .md beside it).
const rerender = process.argv[2]?.endsWith('.json') ? process.argv[2] : null;
if (rerender) {
  const text = markdown(JSON.parse(readFileSync(rerender, 'utf8')));
  writeFileSync(rerender.replace(/\.json$/, '.md'), text);
  console.log(text);
}
(rerender ? Promise.resolve() : main())
  .then(() => process.exit(0))
  .catch((err) => {
    console.error(err);
    process.exit(1);
  });
