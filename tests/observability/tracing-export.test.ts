import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { useBuiltDist } from '../helpers/build.js';
import { otlpReceiver, type OtlpReceiver } from '../helpers/otlp.js';
import { spawnServer, stopServers, type ServerProcess } from '../helpers/process.js';
import { seededDatabase, type SeededDatabase } from '../helpers/webhooks.js';

// The export as an operator configures it by default: OTLP/HTTP protobuf (the standard's default protocol)
// to OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as given; spans still buffered when SIGTERM comes are sent before
// the process exits.
useBuiltDist();
const TRACE_ID = '0af7651916cd43dd8448eb211c80319c';

let d: SeededDatabase;
let collector: OtlpReceiver;
let server: ServerProcess;

beforeAll(async () => {
  d = await seededDatabase();
  collector = await otlpReceiver();
  server = await spawnServer({
    DATABASE_URL: d.url,
    OTEL_EXPORTER_OTLP_ENDPOINT: '',
    OTEL_SDK_DISABLED: '',
    OTEL_EXPORTER_OTLP_PROTOCOL: '',
    OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${collector.url}/collector/traces`,
    // No periodic export within the test: what arrives was flushed by the shutdown.
    OTEL_BSP_SCHEDULE_DELAY: '600000',
  });
}, 60_000);
afterAll(async () => {
  await stopServers(server ? [server] : []);
  await collector?.close();
  await d?.close();
});

/** A collector that reads each export and never answers it: the processor's limit (or the exporter's, 10 s) ends the wait. */
async function silentCollector() {
  const held: ServerResponse[] = [];
  const server = createServer((req, res) => {
    req.resume();
    held.push(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    held,
    close: async () => {
      for (const res of held) res.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** Roster exporting to `endpoint`, one span a batch, warnings logged. */
const spawnExporting = (endpoint: string, env: NodeJS.ProcessEnv) =>
  spawnServer({
    DATABASE_URL: d.url,
    OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
    OTEL_SDK_DISABLED: '',
    OTEL_EXPORTER_OTLP_PROTOCOL: '',
    OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: '',
    OTEL_BSP_SCHEDULE_DELAY: '600000',
    OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '1',
    LOG_LEVEL: 'warn',
    ...env,
  });

/** Waits up to `ms` for `done`, running `step` (if any) and then 50 ms between checks. */
async function within(ms: number, done: () => boolean, step?: () => Promise<void>): Promise<boolean> {
  const until = Date.now() + ms;
  while (!done() && Date.now() < until) {
    await step?.();
    await new Promise((r) => setTimeout(r, 50));
  }
  return done();
}

test('spans buffered at SIGTERM are exported before the exit, as protobuf, to the traces endpoint as given', async () => {
  const res = await fetch(`${server.url}/healthz`, { headers: { traceparent: `00-${TRACE_ID}-b7ad6b7169203331-01` } });
  expect(res.status).toBe(200);
  expect(collector.requests).toEqual([]);

  await stopServers([server]);
  expect(server.proc.exitCode).toBe(0);
  expect(collector.requests.map((r) => [r.path, r.contentType])).toEqual([
    ['/collector/traces', 'application/x-protobuf'],
  ]);
  // The protobuf carries the trace id as its 16 bytes, the service name as text.
  const body = collector.requests[0]!.body;
  expect(body.includes(Buffer.from(TRACE_ID, 'hex'))).toBe(true);
  expect(body.includes(Buffer.from('roster'))).toBe(true);
}, 60_000);

test('a full batch (OTEL_BSP_MAX_EXPORT_BATCH_SIZE) is exported at once, without waiting for the schedule', async () => {
  const batchCollector = await otlpReceiver();
  const batched = await spawnServer({
    DATABASE_URL: d.url,
    OTEL_EXPORTER_OTLP_ENDPOINT: '',
    OTEL_SDK_DISABLED: '',
    OTEL_EXPORTER_OTLP_PROTOCOL: '',
    OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${batchCollector.url}/v1/traces`,
    OTEL_BSP_SCHEDULE_DELAY: '600000',
    OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '1',
  });
  try {
    const res = await fetch(`${batched.url}/healthz`, {
      headers: { traceparent: `00-${TRACE_ID}-b7ad6b7169203331-01` },
    });
    expect(res.status).toBe(200);
    // Under the ten-minute schedule, only a batch filled by one span sends it while the server runs (the
    // readiness probes' spans went out the same way before it).
    const traced = () => batchCollector.requests.some((r) => r.body.includes(Buffer.from(TRACE_ID, 'hex')));
    expect(await within(10_000, traced)).toBe(true);
  } finally {
    await stopServers([batched]);
    await batchCollector.close();
  }
}, 60_000);

/** Runs `body` against Roster exporting to a silent collector with `env`; both are stopped after, whatever happens. */
async function againstSilentCollector(
  env: NodeJS.ProcessEnv,
  body: (server: { url: string; stdout: () => string; held: ServerResponse[] }) => Promise<void>,
): Promise<void> {
  const silent = await silentCollector();
  let running: ServerProcess | undefined;
  try {
    const started = (running = await spawnExporting(silent.url, env));
    await body({ url: started.url, stdout: () => started.stdout(), held: silent.held });
  } finally {
    await stopServers(running ? [running] : []);
    await silent.close();
  }
}

test('an export the collector never answers is given up after OTEL_BSP_EXPORT_TIMEOUT, with a warning', async () => {
  await againstSilentCollector({ OTEL_BSP_EXPORT_TIMEOUT: '300' }, async ({ url, stdout, held }) => {
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    // The exporter's own limit (OTEL_EXPORTER_OTLP_TIMEOUT, 10 s; its message differs) and the processor's
    // default (30 s) are far off.
    expect(await within(5_000, () => /"level":40,.*"msg":"tracing: Timeout"/.test(stdout()))).toBe(true);
    expect(await within(2_000, () => held.length > 0)).toBe(true);
    // One line an operator reads, not the SDK's stack.
    expect(stdout()).not.toContain('BatchSpanProcessorBase');
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
  });
}, 60_000);

test('spans past OTEL_BSP_MAX_QUEUE_SIZE while an export is under way are dropped, and the drop is told', async () => {
  // One span in the queue while one export waits on the silent collector for a second.
  const env = { OTEL_BSP_MAX_QUEUE_SIZE: '1', OTEL_BSP_EXPORT_TIMEOUT: '1000' };
  await againstSilentCollector(env, async ({ url, stdout }) => {
    const statuses = await Promise.all(Array.from({ length: 6 }, () => fetch(`${url}/healthz`).then((r) => r.status)));
    expect(statuses).toEqual(Array(6).fill(200));
    // The SDK tells the drop when a span next finds room: after the export under way gave up.
    const dropped = () => /"level":40,.*"msg":"tracing: Dropped \d+ spans because maxQueueSize reached/.test(stdout());
    const anotherSpan = async () => expect((await fetch(`${url}/healthz`)).status).toBe(200);
    expect(await within(10_000, dropped, anotherSpan)).toBe(true);
  });
}, 60_000);
