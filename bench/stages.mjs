// `npm run bench:stages`: where one canonical request's time goes in Roster, without touching src/.
// Roster (servers/roster-profiled.mjs, built from dist/) runs under load while V8's CPU profiler samples it;
// each sample's self time is put in a stage by the file (or builtin) it was in, and divided by the
// requests answered meanwhile. BENCH_DB=pg (under scripts/with-postgres.sh) profiles it on PostgreSQL.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { WORKLOADS, createDataset } from './dataset.mjs';
import {
  AS_SHIPPED,
  SHIPPED_NODE_ARGS,
  CONNECTIONS,
  DATABASE_URL,
  DB_NAME,
  PG,
  load,
  startServer,
  stop,
} from './harness.mjs';
import { clusterCpuMs, cpuMs, mainThreadCpuMs, postmasterPid } from './proc.mjs';

const DURATION = Number(process.env.BENCH_DURATION ?? 8);
const WORKLOAD = process.env.STAGES_WORKLOAD ?? 'repeated';
const here = (path) => new URL(path, import.meta.url).pathname;
const PROFILER = 'the profiler itself';
const UNATTRIBUTED = 'V8, native and event loop, unattributed';
const HTTP = 'HTTP and Express';
const OTHER = 'other';

/**
 * Stages, first match wins, tested against a frame's script URL (node_modules paths, dist/ files,
 * node: internals) or, for a frame without one, `fn:` and its function name. A frame that matches no
 * row and is Node's own (node: URL), native (no URL: builtins, natives, graphql-jit's generated code) or a
 * general helper (lodash, debug, Roster's dist/lib) takes its caller's stage; any other file is "other". Add a row (or a pattern) for a new file in dist/
 * here, above the row that would otherwise take it.
 */
const STAGES = [
  ['response cache', [/dist\/graphql\/response-cache/]],
  ['bearer token', [/dist\/services\/bearer|dist\/http\/bearer-auth|dist\/oidc\/access-token|\/lru-cache\//]],
  [
    'limits and cost',
    [/dist\/graphql\/(plugins\/query-limits|limits|request-guards|introspection-sizes)|dist\/http\/request-timeout/],
  ],
  ['rate limit', [/rate-limiter-flexible|dist\/services\/rate-limit/]],
  [
    'logs and metrics',
    [/\/(pino|pino-std-serializers|sonic-boom|thread-stream|prom-client|tdigest)\/|dist\/observability/],
  ],
  [
    'SQL (knex, drivers, stores)',
    [/\/(knex|better-sqlite3|pg|pg-pool|pg-protocol|pg-types|pg-connection-string|tarn)\/|dist\/stores\//],
  ],
  ['serialisation and ETag', [/^fn:(stringify|JSONStringify|JsonStringify)$/, /dist\/graphql\/conditional/]],
  [
    'execution (graphql-jit, graphql-js, resolvers)',
    [
      /\/(graphql-jit|graphql|dataloader|fast-json-stringify|generate-function)\//,
      /dist\/graphql\/(resolvers|loaders|pagination|jit-executor|context|node-lookup|models)/,
      /dist\/services\//,
    ],
  ],
  ['Apollo Server', [/@apollo\/|@as-integrations\/|dist\/graphql\/(server|plugins)/]],
  [
    HTTP,
    [
      /\/(express|router|body-parser|raw-body|finalhandler|send|on-finished|on-headers|content-type|type-is|qs|iconv-lite|negotiator|accepts|cors|depd|statuses|http-errors|path-to-regexp|parseurl|vary|etag|fresh|encodeurl|mime-types|media-typer|bytes|cookie-parser|cookie)\//,
      /dist\/http\/|dist\/app\.js/,
    ],
  ],
  ['garbage collection', [/^fn:\(garbage collector\)$/]],
  [UNATTRIBUTED, [/^fn:\(program\)$/]],
  // Not Roster's: left out of the total.
  [PROFILER, [/^node:inspector|roster-profiled\.mjs/]],
];
// Node's HTTP, socket and stream code called from the event loop itself (no caller of Roster's): the
// request's HTTP side, or on PostgreSQL also the pg connections' socket reads.
const EVENT_LOOP_IO = [/^node:(_http|http|net|internal\/(streams|http|stream_base_commons|net|js_stream_socket))/];

const frameKey = ({ url, functionName }) => (url ? url.replace(/^file:\/\//, '') : `fn:${functionName}`);
const matchStage = (key) => STAGES.find(([, patterns]) => patterns.some((p) => p.test(key)))?.[0];
// Node's own code, natives and general-purpose helpers: they work for whoever called them.
const transparent = (key) => /^(node:|fn:)|\/node_modules\/(lodash|debug|ms)[./]|dist\/lib\//.test(key);

function selfTimes(profile) {
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const parents = new Map();
  for (const n of profile.nodes) for (const child of n.children ?? []) parents.set(child, n.id);
  /** A node's stage: its own, else (Node's own, native or helper code) its nearest caller's. */
  const stageOf = (id) => {
    for (let at = id; at !== undefined; at = parents.get(at)) {
      const key = frameKey(nodes.get(at).callFrame);
      const stage = matchStage(key);
      if (stage) return stage;
      if (!transparent(key)) return OTHER;
    }
    const own = frameKey(nodes.get(id).callFrame);
    return EVENT_LOOP_IO.some((p) => p.test(own)) ? HTTP : UNATTRIBUTED;
  };
  const selfUs = new Map();
  for (const [i, id] of profile.samples.entries()) selfUs.set(id, (selfUs.get(id) ?? 0) + profile.timeDeltas[i]);
  const stages = new Map();
  const frames = new Map();
  for (const [id, us] of selfUs) {
    const { callFrame } = nodes.get(id);
    if (callFrame.functionName === '(idle)') continue;
    const stage = stageOf(id);
    stages.set(stage, (stages.get(stage) ?? 0) + us);
    if (stage === OTHER) {
      const frame = `${callFrame.functionName || '(anonymous)'} ${callFrame.url.replace(/^.*node_modules\//, '')}`;
      frames.set(frame, (frames.get(frame) ?? 0) + us);
    }
  }
  return { stages, frames };
}

const ask = (child, message, answer) =>
  new Promise((resolve) => {
    const listener = (m) => m === answer && (child.off('message', listener), resolve());
    child.on('message', listener);
    child.send(message);
  });

async function main() {
  const { sequence, title } = WORKLOADS[WORKLOAD];
  const { token, tokens } = await createDataset(DATABASE_URL);
  mkdirSync(here('results/tmp'), { recursive: true });
  const profileFile = here(`results/tmp/stages-${process.pid}.cpuprofile`);
  const postmaster = PG ? await postmasterPid(DATABASE_URL) : null;
  const { child, url } = await startServer(
    here('servers/roster-profiled.mjs'),
    {
      ...AS_SHIPPED,
      PROFILE_FILE: profileFile,
    },
    SHIPPED_NODE_ARGS,
  );
  let result, cpu, mainCpu, dbCpu;
  try {
    await load(url, token, sequence, 2, { tokens, warmUp: true }); // compiled, cached, connections open
    await ask(child, 'start', 'started');
    const cpuBefore = cpuMs(child.pid);
    const mainBefore = mainThreadCpuMs(child.pid);
    const dbBefore = postmaster && clusterCpuMs(postmaster);
    result = await load(url, token, sequence, DURATION, { tokens });
    cpu = cpuMs(child.pid) - cpuBefore;
    mainCpu = mainThreadCpuMs(child.pid) - mainBefore;
    dbCpu = postmaster && clusterCpuMs(postmaster) - dbBefore;
    await ask(child, 'stop', 'stopped');
  } finally {
    await stop(child);
  }
  if (result.non2xx || result.errors) throw new Error(`${result.non2xx} non-2xx, ${result.errors} errors under load`);
  const requests = result.requests.total;
  const { stages, frames } = selfTimes(JSON.parse(readFileSync(profileFile, 'utf8')));
  if (!process.env.STAGES_KEEP_PROFILE) rmSync(profileFile, { force: true });

  stages.delete(PROFILER);
  const sampled = [...stages.values()].reduce((a, b) => a + b, 0);
  // Samples are wall-clock time (a descheduled thread still accrues it): shares come from the profile,
  // µs from the main thread's CPU time as /proc counts it.
  const mainUs = (1000 * mainCpu) / requests;
  const rows = [...STAGES.map(([name]) => name).filter((n) => n !== PROFILER), OTHER].map((name) => [
    name,
    (stages.get(name) ?? 0) / sampled,
  ]);
  const fmt = (n, digits = 0) =>
    n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
  const lines = [
    `${DB_NAME}, ${title}: ${fmt(requests)} requests in ${DURATION} s (${fmt(requests / DURATION)} req/s, ${CONNECTIONS} connections) under V8's CPU profiler (100 µs sampling); self time by stage`,
    '',
    '| stage | µs/request | share |',
    '| --- | ---: | ---: |',
    ...rows.map(([name, share]) => `| ${name} | ${fmt(share * mainUs)} | ${fmt(100 * share, 1)} % |`),
    `| **main thread, total** | **${fmt(mainUs)}** | 100 % |`,
    '',
    `server CPU, all threads (/proc): ${fmt((1000 * cpu) / requests)} µs/request; profile samples: ${fmt(sampled / requests)} µs/request of wall-clock time` +
      (PG ? `; PostgreSQL cluster CPU: ${fmt((1000 * dbCpu) / requests)} µs/request` : ''),
    '',
    `Largest frames left in "${OTHER}" (extend STAGES in bench/stages.mjs to place them):`,
    '',
    ...(frames.size
      ? [...frames]
          .sort((a, b) => b[1] - a[1])
          .slice(0, 12)
          .map(([frame, us]) => `- ${fmt((100 * us) / sampled, 1)} %: \`${frame}\``)
      : ['- none']),
  ];
  console.log(lines.join('\n'));
  const db = PG ? 'pg' : 'sqlite';
  // BENCH_RESULTS=<name> keeps a later profile beside the one it is compared with: results/<name>-<db>.md.
  const file = process.env.BENCH_RESULTS
    ? `results/${process.env.BENCH_RESULTS}-${db}.md`
    : `results/stages-${db}${WORKLOAD === 'repeated' ? '' : `-${WORKLOAD}`}.md`;
  writeFileSync(here(file), lines.join('\n') + '\n');
  console.log(`\nwritten: bench/${file}`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
