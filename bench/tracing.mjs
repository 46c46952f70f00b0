// `npm run bench:tracing`: what tracing costs a computed answer. Roster (bench/servers/roster.mjs) on the rotating
// workload with RESPONSE_CACHE_MB=0 (no replays: every answer runs its SQL), in alternating rounds:
//   base  the build of BENCH_TRACING_BASE (a git ref from before tracing), when given;
//   off   this build, no OTLP endpoint: nothing of the SDK loaded;
//   on    this build exporting every request's spans (default sampler, protobuf) to a local sink that
//         reads and discards them;
//   unsampled  (BENCH_TRACING_UNSAMPLED=1) tracing on with OTEL_TRACES_SAMPLER=always_off.
//   apollo-off, apollo-on  (BENCH_TRACING_FLOOR=1) the Apollo plain peer untraced, and traced with Roster's
//         instrumentation and SDK setup (four spans: request, operation, two statements), the one against the
//         other: what the same spans cost on the leanest build of the stack. The peer runs with Node's
//         defaults: under Roster's image flags its untraced CPU per request came out 0.8 or 1.6 ms from round
//         to round. BENCH_TRACING_VARIANTS=apollo-off,apollo-on runs the pair on its own.
// The sink also counts what reached it while each server ran: nothing, unless tracing is on.
// Each round runs every variant at once, each at BENCH_TRACING_RATE requests a second (default 250, well under
// what one answers on two cores): the host's drift, which moves one server's CPU per request by ±20 % from one
// process to the next, falls on all of them alike. BENCH_TRACING_RATE=0 runs them one after another, each as
// fast as it answers.
import { createServer } from 'node:http';
import { cpus, loadavg } from 'node:os';
import { WORKLOADS, createDataset } from './dataset.mjs';
import {
  AS_SHIPPED,
  SHIPPED_NODE_ARGS,
  CONNECTIONS,
  buildBase,
  DATABASE_URL,
  DB_NAME,
  fmt,
  median,
  saveRun,
  load,
  post,
  startServer,
  stop,
} from './harness.mjs';
import { cpuMs } from './proc.mjs';

const DURATION = Number(process.env.BENCH_DURATION ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const BASE_REF = process.env.BENCH_TRACING_BASE;
const RATE = Number(process.env.BENCH_TRACING_RATE ?? 250);
/** Connections per server when they run at once at a fixed rate. */
const RATE_CONNECTIONS = 4;
const here = (path) => new URL(path, import.meta.url).pathname;
const sequence = WORKLOADS.rotating.sequence;
/** Unset whatever the shell holds: each variant says what it traces. */
const NO_TRACING = { OTEL_EXPORTER_OTLP_ENDPOINT: '', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: '', OTEL_SDK_DISABLED: '' };

/** An OTLP/HTTP collector that reads every export and throws it away. */
async function startSink() {
  const sink = { requests: 0, bytes: 0 };
  const server = createServer((req, res) => {
    req.on('data', (chunk) => (sink.bytes += chunk.length));
    req.on('end', () => {
      sink.requests += 1;
      res.writeHead(200, { 'content-type': req.headers['content-type'] ?? 'application/x-protobuf' }).end();
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return Object.assign(sink, { url: `http://127.0.0.1:${server.address().port}`, close: () => server.close() });
}

async function startVariant(variant, token) {
  const { child, url } = await startServer(
    variant.script,
    // A peer runs with Node's defaults, as `npm run bench` runs it; Roster with its image's flags.
    { ...(variant.peer ? {} : AS_SHIPPED), RESPONSE_CACHE_MB: '0', ...variant.env },
    variant.peer ? [] : SHIPPED_NODE_ARGS,
  );
  for (const body of new Set(sequence)) {
    const text = await (await post(url, token, body)).text();
    if (!text.startsWith('{"data":{"event":{"registrations":{"nodes":[')) {
      await stop(child);
      throw new Error(`${variant.key}: unexpected answer ${text.slice(0, 200)}`);
    }
  }
  return { child, url };
}

/** Loads the servers (all at once) for DURATION seconds and reads what each cost. */
async function measure(servers, token, options) {
  await Promise.all(servers.map(({ url }) => load(url, token, sequence, 1, options)));
  const before = servers.map(({ child, sink }) => ({
    cpu: cpuMs(child.pid),
    requests: sink.requests,
    bytes: sink.bytes,
  }));
  const results = await Promise.all(servers.map(({ url }) => load(url, token, sequence, DURATION, options)));
  // The spans of the last requests go out within the export delay: counted with this run.
  await new Promise((resolve) => setTimeout(resolve, 1200));
  return servers.map(({ child, sink }, i) => {
    const result = results[i];
    const served = result.requests.total;
    return {
      rps: result.requests.average,
      cpuMsPerRequest: (cpuMs(child.pid) - before[i].cpu) / served,
      p50: result.latency.p50,
      p99: result.latency.p99,
      non2xx: result.non2xx + result.errors,
      exports: sink.requests - before[i].requests,
      exportBytesPerRequest: (sink.bytes - before[i].bytes) / served,
    };
  });
}

async function main() {
  const base = BASE_REF ? buildBase(BASE_REF) : undefined;
  // One sink per variant: when they run at once, each one's exports are told apart.
  const sinks = {
    base: await startSink(),
    off: await startSink(),
    unsampled: await startSink(),
    on: await startSink(),
    'apollo-off': await startSink(),
    'apollo-on': await startSink(),
  };
  const script = here('servers/roster.mjs');
  const listed = [
    ...(base ? [{ key: 'base', name: `before tracing (${base.sha})`, script: base.script, env: NO_TRACING }] : []),
    { key: 'off', name: 'tracing off (no endpoint)', script, env: NO_TRACING },
    // The instrumentation's own share: hooks and non-recording spans, nothing recorded or exported.
    ...(process.env.BENCH_TRACING_UNSAMPLED === '1'
      ? [
          {
            key: 'unsampled',
            name: 'tracing on, no trace sampled (always_off)',
            script,
            env: { ...NO_TRACING, OTEL_EXPORTER_OTLP_ENDPOINT: sinks.unsampled.url, OTEL_TRACES_SAMPLER: 'always_off' },
          },
        ]
      : []),
    {
      key: 'on',
      name: 'tracing on (every request, protobuf, 1 s export)',
      script,
      env: { ...NO_TRACING, OTEL_EXPORTER_OTLP_ENDPOINT: sinks.on.url, OTEL_BSP_SCHEDULE_DELAY: '1000' },
    },
    ...(process.env.BENCH_TRACING_FLOOR === '1'
      ? [
          {
            key: 'apollo-off',
            name: 'Apollo plain, untraced',
            script: here('servers/plain-apollo.mjs'),
            env: NO_TRACING,
            peer: true,
            reference: 'apollo-off',
          },
          {
            key: 'apollo-on',
            name: 'Apollo plain, traced the same way',
            script: here('servers/plain-apollo.mjs'),
            env: {
              ...NO_TRACING,
              PLAIN_TRACING: '1',
              OTEL_EXPORTER_OTLP_ENDPOINT: sinks['apollo-on'].url,
              OTEL_BSP_SCHEDULE_DELAY: '1000',
            },
            peer: true,
            reference: 'apollo-off',
          },
        ]
      : []),
  ];
  // BENCH_TRACING_VARIANTS=apollo-off,apollo-on runs those only (keys as above).
  const only = process.env.BENCH_TRACING_VARIANTS?.split(',').map((key) => key.trim());
  const variants = only ? listed.filter((v) => only.includes(v.key)) : listed;
  if (!variants.length) throw new Error(`BENCH_TRACING_VARIANTS names none of ${listed.map((v) => v.key).join(', ')}`);
  const load0 = loadavg();
  const mode = RATE
    ? `all at once, ${RATE} req/s each over ${RATE_CONNECTIONS} connections`
    : `one after another, ${CONNECTIONS} connections, as fast as answered`;
  console.log(
    `${DB_NAME}, rotating, RESPONSE_CACHE_MB=0; ${variants.map((v) => v.key).join(', ')}; ${mode}; load ${load0}`,
  );
  const { token } = await createDataset(DATABASE_URL);
  const runs = Object.fromEntries(variants.map((v) => [v.key, []]));
  const report = (round, variant, r) =>
    console.log(
      `round ${round}/${ROUNDS} ${variant.key}: ${fmt(r.rps)} req/s, ${fmt(r.cpuMsPerRequest, 3)} ms CPU/request, ${r.exports} exports`,
    );
  for (let round = 1; round <= ROUNDS; round += 1) {
    // Each round in another order: a drift of the machine's load falls on every variant alike.
    const order = round % 2 ? variants : [...variants].reverse();
    if (RATE) {
      const servers = [];
      try {
        for (const variant of order)
          servers.push({ ...(await startVariant(variant, token)), sink: sinks[variant.key] });
        const results = await measure(servers, token, { rate: RATE, connections: RATE_CONNECTIONS });
        order.forEach((variant, i) => (runs[variant.key].push(results[i]), report(round, variant, results[i])));
      } finally {
        for (const { child } of servers) await stop(child);
      }
    } else {
      for (const variant of order) {
        const server = { ...(await startVariant(variant, token)), sink: sinks[variant.key] };
        try {
          const [r] = await measure([server], token, {});
          runs[variant.key].push(r);
          report(round, variant, r);
        } finally {
          await stop(server.child);
        }
      }
    }
  }
  for (const sink of Object.values(sinks)) sink.close();
  const reference = base ? 'base' : variants.some((v) => v.key === 'off') ? 'off' : variants[0].reference;
  const ref = variants.find((v) => v.key === reference);
  const summary = variants.map((v) => {
    const r = runs[v.key];
    return {
      key: v.key,
      name: v.name,
      rps: median(r.map((x) => x.rps)),
      cpuMsPerRequest: median(r.map((x) => x.cpuMsPerRequest)),
      p50: median(r.map((x) => x.p50)),
      p99: median(r.map((x) => x.p99)),
      non2xx: r.reduce((n, x) => n + x.non2xx, 0),
      exports: r.reduce((n, x) => n + x.exports, 0),
      exportBytesPerRequest: median(r.map((x) => x.exportBytesPerRequest)),
    };
  });
  // Each round's figure against the reference's in the same round, then the median: the machine's drift
  // between rounds (it is shared) falls out of the comparison.
  // A peer's variants are compared with that peer untraced (their `reference`), Roster's with Roster's.
  const referenceOf = (key) => variants.find((v) => v.key === key).reference ?? reference;
  const paired = (key, field) => median(runs[key].map((r, i) => r[field] / runs[referenceOf(key)][i][field] - 1)) * 100;
  const rows = summary.map(
    (s) =>
      `| ${s.name} | ${fmt(s.rps)} | ${fmt(s.cpuMsPerRequest, 3)} | ${fmt(paired(s.key, 'cpuMsPerRequest'), 1)} % |${RATE ? '' : ` ${fmt(-paired(s.key, 'rps'), 1)} % |`} ${s.p50} / ${s.p99} | ${s.exports} | ${fmt(s.exportBytesPerRequest)} | ${s.non2xx} |`,
  );
  const machine = `${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, Node ${process.version}`;
  const md = [
    `# Tracing's cost on a computed answer (${DB_NAME})`,
    '',
    `${new Date().toISOString()}; ${machine}; load average ${load0.map((n) => n.toFixed(1)).join(', ')} at the start, ${loadavg()
      .map((n) => n.toFixed(1))
      .join(
        ', ',
      )} at the end. Rotating workload, RESPONSE_CACHE_MB=0, ${ROUNDS} rounds of ${DURATION} s, the servers ${mode} (medians; the comparisons are the median of each round's against the reference's in that round). Against: ${ref.name}${variants.some((v) => v.reference && v.reference !== reference) ? '; the Apollo plain peer traced against it untraced' : ''}.`,
    '',
    // At a fixed rate every server answers as many: only the CPU it took tells them apart.
    `| server | req/s | server CPU ms/request | CPU/request vs reference |${RATE ? '' : ' req/s lost |'} p50 / p99 ms | exports received | export bytes/request | non-2xx |`,
    `| ------ | ----: | --------------------: | -----------------------: |${RATE ? '' : ' ---------: |'} -----------: | ---------------: | -------------------: | ------: |`,
    ...rows,
    '',
  ].join('\n');
  saveRun('tracing', { machine, load0, rate: RATE, summary, runs }, md);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
