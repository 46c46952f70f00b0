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
    const until = Date.now() + 10_000;
    while (!traced() && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    expect(traced()).toBe(true);
  } finally {
    await stopServers([batched]);
    await batchCollector.close();
  }
}, 60_000);
