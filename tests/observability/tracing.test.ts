import { useBuiltDist } from '../helpers/build.js';
import { otlpReceiver, type ExportedSpan, type OtlpReceiver } from '../helpers/otlp.js';
import { spawnServer, stopServers, type ServerProcess } from '../helpers/process.js';
import { until } from '../helpers/wait.js';
import { hookReceiver, seededDatabase, type HookReceiver, type SeededDatabase } from '../helpers/webhooks.js';

// Tracing end to end: the built server as a process (the SDK is global to it) exporting OTLP/HTTP JSON to a
// local collector. A request's traceparent is continued through the HTTP, GraphQL and SQL spans, and a
// webhook delivery is a span whose context reaches the receiver.
useBuiltDist();
const SLUG = 'traced-slug-5821';
const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN = '00f067aa0ba902b7';
const SYSTEM = process.env.TEST_DATABASE_URL ? 'postgresql' : 'sqlite';
/** Spans go out every 100 ms; a loaded machine may take seconds more. */
const EXPORT_WAIT_MS = 15_000;

let d: SeededDatabase;
let collector: OtlpReceiver;
let hook: HookReceiver;
let server: ServerProcess;
let appToken: string;

beforeAll(async () => {
  d = await seededDatabase();
  [collector, hook] = await Promise.all([otlpReceiver(), hookReceiver()]);
  await d.stores.events.create({ slug: SLUG, name: 'Traced Event', organizerIds: [d.organizer.id] });
  const made = await d.stores.apps.create({
    ownerId: d.organizer.id,
    name: 'Traced',
    redirectUris: ['https://t.example/cb'],
  });
  appToken = made.appToken;
  server = await spawnServer({
    DATABASE_URL: d.url,
    OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    OTEL_BSP_SCHEDULE_DELAY: '100',
    OTEL_SERVICE_NAME: 'roster-under-test',
    TRACING_GRAPHQL_DOCUMENT: 'true',
  });
}, 60_000);
afterAll(async () => {
  await stopServers(server ? [server] : []);
  await Promise.all([collector?.close(), hook?.close()]);
  await d?.close();
});

async function spansOf(traceId: string, done: (spans: ExportedSpan[]) => boolean): Promise<ExportedSpan[]> {
  let spans: ExportedSpan[] = [];
  await until(
    () => done((spans = collector.spans().filter((s) => s.traceId === traceId))),
    `the spans of trace ${traceId}`,
    EXPORT_WAIT_MS,
  );
  return spans;
}

/** A GraphQL POST with the app's token, continuing the caller's trace `traceparent`. */
const postTraced = (traceparent: string, body: unknown) =>
  fetch(`${server.url}/graphql`, {
    method: 'POST',
    headers: { authorization: `Bearer ${appToken}`, 'content-type': 'application/json', traceparent },
    body: JSON.stringify(body),
  });

test('a GraphQL request continues its caller’s trace: HTTP server span, operation span, SQL spans', async () => {
  const res = await postTraced(`00-${TRACE_ID}-${CALLER_SPAN}-01`, {
    query: `query TracedEvent($first: Int) { event(slug: "${SLUG}") { name registrations(first: $first) { totalCount } } }`,
    variables: { first: 7 },
  });
  expect(res.status).toBe(200);
  expect(await res.json()).toEqual({ data: { event: { name: 'Traced Event', registrations: { totalCount: 0 } } } });

  const spans = await spansOf(TRACE_ID, (all) => all.some((s) => s.kind === 2));
  const http = spans.find((s) => s.kind === 2)!;
  expect(http).toMatchObject({
    name: 'POST /graphql',
    parentSpanId: CALLER_SPAN,
    attributes: expect.objectContaining({
      'http.request.method': 'POST',
      'url.path': '/graphql',
      'http.route': '/graphql',
      'http.response.status_code': 200,
    }),
    resource: expect.objectContaining({ 'service.name': 'roster-under-test' }),
  });

  const operation = spans.find((s) => s.attributes['graphql.operation.type'] !== undefined)!;
  expect(operation).toMatchObject({
    name: 'query TracedEvent',
    parentSpanId: http.spanId,
    status: 0,
    attributes: expect.objectContaining({
      'graphql.operation.type': 'query',
      'graphql.operation.name': 'TracedEvent',
    }),
  });
  // Asked for with TRACING_GRAPHQL_DOCUMENT, its literals replaced.
  expect(operation.attributes['graphql.document']).toContain('event(slug: "*")');

  const sql = spans.filter((s) => s.attributes['db.system.name'] !== undefined);
  const eventRead = sql.find((s) => /\bevents\b/.test(String(s.attributes['db.query.text'])))!;
  expect(eventRead).toMatchObject({
    kind: 3,
    parentSpanId: operation.spanId,
    attributes: expect.objectContaining({ 'db.system.name': SYSTEM, 'db.operation.name': 'SELECT' }),
  });
  // The token's lookup comes before the operation: under the HTTP span.
  expect(sql.some((s) => s.parentSpanId === http.spanId)).toBe(true);
  for (const s of sql) expect(s.parentSpanId === http.spanId || s.parentSpanId === operation.spanId).toBe(true);
  // Placeholders only: neither the slug, nor the token, nor any other value reached the collector.
  const exported = collector.requests.map((r) => r.body.toString('utf8')).join('\n');
  expect(exported).not.toContain(SLUG);
  expect(exported).not.toContain(appToken);
}, 30_000);

test('an operation with errors has an error status', async () => {
  const traceId = 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa1';
  const res = await postTraced(`00-${traceId}-${CALLER_SPAN}-01`, { query: '{ noSuchField }' });
  // 200 or 400 by the Accept header (GraphQL over HTTP): the server span says which.
  expect(((await res.json()) as { errors: unknown[] }).errors).toHaveLength(1);
  const spans = await spansOf(traceId, (all) => all.some((s) => s.kind === 2));
  const operation = spans.find((s) => s.name === 'GraphQL Operation')!;
  expect(operation.status).toBe(2);
  expect(operation.attributes['error.type']).toBe('GRAPHQL_VALIDATION_FAILED');
  expect(spans.find((s) => s.kind === 2)!.attributes['http.response.status_code']).toBe(res.status);
}, 30_000);

test('a caller that does not sample its trace gets no spans recorded', async () => {
  const traceId = 'bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb2';
  const res = await fetch(`${server.url}/healthz`, { headers: { traceparent: `00-${traceId}-${CALLER_SPAN}-00` } });
  expect(res.status).toBe(200);
  // Nor a GraphQL operation: no operation span, no SQL span beneath it.
  const operation = await postTraced(`00-${traceId}-${CALLER_SPAN}-00`, {
    query: `{ event(slug: "${SLUG}") { name } }`,
  });
  expect(await operation.json()).toEqual({ data: { event: { name: 'Traced Event' } } });
  // A sampled request after it: once its spans are out, the unsampled one's would have been too.
  const after = 'bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb3';
  await fetch(`${server.url}/healthz`, { headers: { traceparent: `00-${after}-${CALLER_SPAN}-01` } });
  await spansOf(after, (all) => all.length > 0);
  expect(collector.spans().filter((s) => s.traceId === traceId)).toEqual([]);
}, 30_000);

test('a webhook delivery is a span, and its POST carries that span’s traceparent to the receiver', async () => {
  await d.services.webhooks.create({ appId: d.appId, url: hook.url });
  await d.register('Traced Registrant');
  await until(() => hook.received.length > 0, 'a webhook delivery', EXPORT_WAIT_MS);
  const traceparent = String(hook.received[0]!.headers.traceparent);
  const [, traceId, postSpanId, flags] = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/.exec(traceparent) ?? [];
  expect(flags).toBe('01');

  const spans = await spansOf(traceId!, (all) => all.some((s) => s.name === 'webhook delivery'));
  const post = spans.find((s) => s.spanId === postSpanId)!;
  const delivery = spans.find((s) => s.name === 'webhook delivery')!;
  expect(post).toMatchObject({
    name: 'POST',
    kind: 3,
    parentSpanId: delivery.spanId,
    attributes: expect.objectContaining({
      'http.request.method': 'POST',
      'server.address': '127.0.0.1',
      'server.port': hook.port,
      'http.response.status_code': 204,
    }),
  });
  // A new trace of its own, with the attempt's outcome; writing it is among its SQL spans.
  expect(delivery.parentSpanId).toBeUndefined();
  expect(delivery.attributes).toMatchObject({ 'roster.webhook.attempt': 1, 'roster.webhook.outcome': 'delivered' });
  expect(spans.some((s) => s.parentSpanId === delivery.spanId && s.attributes['db.system.name'] === SYSTEM)).toBe(true);
}, 30_000);
