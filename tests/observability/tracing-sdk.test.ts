import { diag, DiagLogLevel } from '@opentelemetry/api';
import { loggingErrorHandler } from '@opentelemetry/core';
import { tracingSettings } from '../../src/lib/tracing-settings.js';
import { batchOptions, describeDiag } from '../../src/observability/tracing.js';

// How the SDK is wired: what its error handler hands the diag logger, as one readable log line, and the
// batch processor's options.

/** The OTLP exporter's error for a refused export: its name, the HTTP status text, status and answer body. */
class OTLPExporterError extends Error {
  override name = 'OTLPExporterError';
  constructor(
    message: string,
    readonly code: number,
    readonly data: string,
  ) {
    super(message);
  }
}

/** The message the SDK's own handler makes of `error` (every own property, stack included, as JSON). */
function handled(error: unknown): string {
  const seen: string[] = [];
  const keep = (message: string) => seen.push(message);
  diag.setLogger({ error: keep, warn: keep, info: keep, debug: keep, verbose: keep }, DiagLogLevel.ERROR);
  try {
    loggingErrorHandler()(error as Error);
  } finally {
    diag.disable();
  }
  expect(seen).toHaveLength(1);
  return seen[0]!;
}

test("the processor's timeout is its message alone, without the SDK's stack", () => {
  const message = handled(new Error('Timeout'));
  expect(message).toContain('"stack"');
  expect(describeDiag(message)).toEqual({ text: 'Timeout', fields: {} });
});

test("a collector's refusal keeps its status and its answer as fields, control characters shown escaped", () => {
  const answer = `{"error":"bad spans"}\u001b[31m\u202e`;
  const { text, fields } = describeDiag(handled(new OTLPExporterError('Bad Request', 400, answer)));
  expect(text).toBe('Bad Request');
  expect(fields).toEqual({ code: '400', data: '{"error":"bad spans"}\\x1b[31m\\u202e' });
});

test('an unexpected error keeps a bounded stack; a collector that answers a huge status text gets one short line', () => {
  const bug = new TypeError('cannot read a span');
  const { text, fields } = describeDiag(handled(bug));
  expect(text).toBe('cannot read a span');
  expect(fields.stack).toContain('TypeError: cannot read a span');
  expect(fields.stack!.length).toBeLessThanOrEqual(2000);

  const flood = describeDiag(
    handled(new OTLPExporterError(`${'x'.repeat(10_000)}\nsecond line`, 502, 'y'.repeat(10_000))),
  );
  expect(flood.text.length).toBeLessThanOrEqual(200);
  expect(flood.text).not.toContain('second line');
  expect(flood.fields.data!.length).toBeLessThanOrEqual(500);
});

test('plain messages pass as they are, bounded and printable; what is not a string does not throw', () => {
  expect(describeDiag('Dropped 3 spans because maxQueueSize reached')).toEqual({
    text: 'Dropped 3 spans because maxQueueSize reached',
    fields: {},
  });
  expect(describeDiag('{not json')).toEqual({ text: '{not json', fields: {} });
  expect(describeDiag('{"message":""}').text).toBe('{"message":""}');
  expect(describeDiag(`line\r\nwith\u0007bell`).text).toBe('line\\x0d\\x0awith\\x07bell');
  expect(describeDiag('z'.repeat(5000)).text.length).toBeLessThanOrEqual(1000);
  expect(describeDiag(undefined)).toEqual({ text: 'undefined', fields: {} });
  expect(describeDiag({ message: 'an object' }).text).toBe('[object Object]');
});

test('each OTEL_BSP_* variable reaches the batch processor option of its meaning', () => {
  const settings = tracingSettings(
    {
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318',
      OTEL_BSP_SCHEDULE_DELAY: '1234',
      OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '7',
      OTEL_BSP_MAX_QUEUE_SIZE: '99',
      OTEL_BSP_EXPORT_TIMEOUT: '4321',
    },
    (message) => new Error(message),
  )!;
  expect(batchOptions(settings)).toEqual({
    scheduledDelayMillis: 1234,
    maxExportBatchSize: 7,
    maxQueueSize: 99,
    exportTimeoutMillis: 4321,
  });
});
