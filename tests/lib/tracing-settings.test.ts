import { tracingSettings } from '../../src/lib/tracing-settings.js';

// Whether and how the server traces, from the standard OTEL_* variables: off unless an endpoint is set.
const fail = (message: string) => new Error(message);
const settings = (env: NodeJS.ProcessEnv) => tracingSettings(env, fail);

test('nothing set, or only the switch: no tracing', () => {
  expect(settings({})).toBeUndefined();
  expect(settings({ OTEL_SDK_DISABLED: 'false', OTEL_SERVICE_NAME: 'x' })).toBeUndefined();
});

test('OTEL_SDK_DISABLED=true wins over an endpoint', () => {
  expect(settings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_SDK_DISABLED: 'TRUE' })).toBeUndefined();
});

test('the defaults once an endpoint is set', () => {
  expect(settings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toEqual({
    url: 'http://collector:4318/v1/traces',
    protocol: 'http/protobuf',
    serviceName: 'roster',
    sampler: { root: 'always_on', parentBased: true, ratio: 1 },
    scheduleDelayMs: 5000,
    maxExportBatchSize: 512,
    maxQueueSize: 2048,
    exportTimeoutMs: 30_000,
    graphqlDocument: false,
  });
});

test.each([
  [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318/' }, 'http://c:4318/v1/traces'],
  [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'https://c.example/otlp' }, 'https://c.example/otlp/v1/traces'],
  [
    { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://t:9/spans' },
    'http://t:9/spans',
  ],
])('%j: spans go to %s', (env, url) => {
  expect(settings(env)?.url).toBe(url);
});

test('the protocol, sampler, delay, name and document settings are read', () => {
  expect(
    settings({
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://t:9/v1/traces',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json',
      OTEL_TRACES_SAMPLER: 'traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0.25',
      OTEL_BSP_SCHEDULE_DELAY: '100',
      OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '64',
      OTEL_BSP_MAX_QUEUE_SIZE: '4096',
      OTEL_BSP_EXPORT_TIMEOUT: '2000',
      OTEL_SERVICE_NAME: 'roster-eu',
      TRACING_GRAPHQL_DOCUMENT: 'true',
    }),
  ).toEqual({
    url: 'http://t:9/v1/traces',
    protocol: 'http/json',
    serviceName: 'roster-eu',
    sampler: { root: 'traceidratio', parentBased: false, ratio: 0.25 },
    scheduleDelayMs: 100,
    maxExportBatchSize: 64,
    maxQueueSize: 4096,
    exportTimeoutMs: 2000,
    graphqlDocument: true,
  });
});

test('a queue set below the default batch takes a batch of its size; a batch set above the queue is refused', () => {
  const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' };
  expect(settings({ ...endpoint, OTEL_BSP_MAX_QUEUE_SIZE: ' 256 ' })).toMatchObject({
    maxQueueSize: 256,
    maxExportBatchSize: 256,
  });
  expect(settings({ ...endpoint, OTEL_BSP_MAX_QUEUE_SIZE: '256', OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '64' })).toMatchObject(
    { maxQueueSize: 256, maxExportBatchSize: 64 },
  );
  expect(() =>
    settings({ ...endpoint, OTEL_BSP_MAX_QUEUE_SIZE: '256', OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '512' }),
  ).toThrow('OTEL_BSP_MAX_EXPORT_BATCH_SIZE (512) must not be more than OTEL_BSP_MAX_QUEUE_SIZE (256)');
});

test.each([
  [{ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }, 'OTEL_EXPORTER_OTLP_PROTOCOL must be http/protobuf or http/json'],
  [{ OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'json' }, 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL must be'],
  [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' }, 'OTEL_EXPORTER_OTLP_ENDPOINT must be an http:// or https:// URL'],
  [{ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'not a url' }, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT must be'],
  [{ OTEL_TRACES_SAMPLER: 'jaeger_remote' }, 'OTEL_TRACES_SAMPLER must be one of'],
  [{ OTEL_TRACES_SAMPLER_ARG: '1.5' }, 'OTEL_TRACES_SAMPLER_ARG must be a ratio from 0 to 1'],
  [{ OTEL_BSP_SCHEDULE_DELAY: '-1' }, 'OTEL_BSP_SCHEDULE_DELAY must be a number of milliseconds'],
  [{ OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '0' }, 'OTEL_BSP_MAX_EXPORT_BATCH_SIZE must be a whole number from 1 to 100000'],
  [{ OTEL_BSP_MAX_QUEUE_SIZE: '1e3' }, 'OTEL_BSP_MAX_QUEUE_SIZE must be a whole number'],
  [{ OTEL_BSP_MAX_QUEUE_SIZE: '100001' }, 'OTEL_BSP_MAX_QUEUE_SIZE must be a whole number from 1 to 100000'],
  [{ OTEL_BSP_MAX_QUEUE_SIZE: '-5' }, 'OTEL_BSP_MAX_QUEUE_SIZE must be a whole number'],
  [{ OTEL_BSP_MAX_QUEUE_SIZE: '\u0665\u0660' }, 'OTEL_BSP_MAX_QUEUE_SIZE must be a whole number'],
  [{ OTEL_BSP_EXPORT_TIMEOUT: '1000000' }, 'OTEL_BSP_EXPORT_TIMEOUT must be a whole number from 1 to 999999'],
  [
    { OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '4096' },
    'OTEL_BSP_MAX_EXPORT_BATCH_SIZE (4096) must not be more than OTEL_BSP_MAX_QUEUE_SIZE (2048)',
  ],
  [{ OTEL_SDK_DISABLED: 'yes' }, 'OTEL_SDK_DISABLED must be true or false'],
  [{ TRACING_GRAPHQL_DOCUMENT: '1' }, 'TRACING_GRAPHQL_DOCUMENT must be true or false'],
])('%j is refused, with or without an endpoint', (env, message) => {
  expect(() => settings(env)).toThrow(message);
  const endpoint =
    'OTEL_EXPORTER_OTLP_ENDPOINT' in env ? 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT' : 'OTEL_EXPORTER_OTLP_ENDPOINT';
  expect(() => settings({ [endpoint]: 'http://c:4318/v1/traces', ...env })).toThrow(message);
});
