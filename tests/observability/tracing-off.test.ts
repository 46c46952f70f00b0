import { useBuiltDist } from '../helpers/build.js';
import { otlpReceiver, type OtlpReceiver } from '../helpers/otlp.js';
import { spawnServer, stopServers, type ServerProcess } from '../helpers/process.js';
import { until } from '../helpers/wait.js';
import { hookReceiver, seededDatabase, type HookReceiver, type SeededDatabase } from '../helpers/webhooks.js';

// Tracing off: with OTEL_SDK_DISABLED=true the collector named by the endpoint hears nothing, and with no
// endpoint at all nothing is traced either; no webhook delivery carries a traceparent.
useBuiltDist();
const TRACEPARENT = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
/** Unset in the server's environment, whatever the test run's own holds. */
const UNSET = { OTEL_EXPORTER_OTLP_ENDPOINT: '', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: '', OTEL_SDK_DISABLED: '' };

let collector: OtlpReceiver;
beforeAll(async () => {
  collector = await otlpReceiver();
});
afterAll(() => collector?.close());

/** A server on a database of its own with a webhook to a receiver; it serves a traced request and a delivery. */
async function serveAndDeliver(env: NodeJS.ProcessEnv): Promise<HookReceiver> {
  const d: SeededDatabase = await seededDatabase();
  const hook = await hookReceiver();
  let server: ServerProcess | undefined;
  try {
    const { appToken } = await d.stores.apps.create({
      ownerId: d.organizer.id,
      name: 'Untraced',
      redirectUris: ['https://u.example/cb'],
    });
    server = await spawnServer({ ...UNSET, DATABASE_URL: d.url, OTEL_BSP_SCHEDULE_DELAY: '100', ...env });
    const res = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${appToken}`, 'content-type': 'application/json', traceparent: TRACEPARENT },
      body: JSON.stringify({ query: '{ event(slug: "process-event") { name } }' }),
    });
    expect(await res.json()).toEqual({ data: { event: { name: 'Process Event' } } });
    await d.services.webhooks.create({ appId: d.appId, url: hook.url });
    await d.register('Untraced Registrant');
    await until(() => hook.received.length > 0, 'a webhook delivery', 15_000);
    // Ten export periods: a span would have gone out by now.
    await new Promise((resolve) => setTimeout(resolve, 1000));
  } finally {
    // Stopped too: a shutdown flushes nothing either.
    await stopServers(server ? [server] : []);
    await hook.close();
    await d.close();
  }
  return hook;
}

test('OTEL_SDK_DISABLED=true: the endpoint set, yet the collector gets no request and no delivery a traceparent', async () => {
  const hook = await serveAndDeliver({
    OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    OTEL_SDK_DISABLED: 'true',
  });
  expect(hook.received[0]!.headers.traceparent).toBeUndefined();
  expect(collector.requests).toEqual([]);
}, 60_000);

test('no endpoint: nothing traced, no delivery carries a traceparent', async () => {
  const hook = await serveAndDeliver({});
  expect(hook.received[0]!.headers.traceparent).toBeUndefined();
  expect(hook.received[0]!.headers.tracestate).toBeUndefined();
  expect(collector.requests).toEqual([]);
}, 60_000);
