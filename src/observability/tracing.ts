import { context, diag, DiagLogLevel, propagation, trace } from '@opentelemetry/api';
import type { Logger } from 'pino';
import { printable } from '../lib/text.js';
import { errorMessage } from '../lib/tracing.js';
import type { TracingSettings } from '../lib/tracing-settings.js';

// The OpenTelemetry SDK, started only when an OTLP endpoint is set (config.tracing): otherwise this module
// loads none of it, registers nothing, and every span anywhere is the API's no-op.

/** How long a stop waits for the last spans to reach the collector: the drain limit covers it too. */
const FLUSH_LIMIT_MS = 3000;

export interface Tracing {
  /** Exports the spans still buffered and stops; never rejects, never outlasts FLUSH_LIMIT_MS. */
  shutdown(): Promise<void>;
}

async function exporterFor(settings: TracingSettings) {
  // Each protocol's exporter reads the standard's other variables itself (headers, timeout, compression).
  if (settings.protocol === 'http/json') {
    const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-http');
    return new OTLPTraceExporter({ url: settings.url });
  }
  const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-proto');
  return new OTLPTraceExporter({ url: settings.url });
}

/** The batch processor's options from the OTEL_BSP_* settings (SDK 3.x reads none of them itself). */
export const batchOptions = (settings: TracingSettings) => ({
  scheduledDelayMillis: settings.scheduleDelayMs,
  maxExportBatchSize: settings.maxExportBatchSize,
  maxQueueSize: settings.maxQueueSize,
  exportTimeoutMillis: settings.exportTimeoutMs,
});

/** A field of the SDK's JSON as text: a string as it is, anything else as JSON. */
const asText = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value));

interface Described {
  text: string;
  fields: Record<string, string>;
}

/**
 * A diag message as one log line: the SDK hands a failed export over as its exception in JSON, stack and all.
 * The message becomes the text; a collector's status and answer, which say why it refused, become fields; the
 * stack is kept only for what is neither the processor's timeout nor the exporter's own error.
 */
export function describeDiag(message: unknown): Described {
  const raw = typeof message === 'string' ? message : String(message);
  if (raw.startsWith('{')) {
    try {
      const parsed = JSON.parse(raw) as Record<string, unknown>;
      if (typeof parsed.message === 'string' && parsed.message) {
        const fields: Record<string, string> = {};
        if (parsed.code !== undefined) fields.code = printable(asText(parsed.code), 40);
        if (parsed.data !== undefined) fields.data = printable(asText(parsed.data), 500);
        const expected = parsed.name === 'OTLPExporterError' || parsed.message === 'Timeout';
        if (!expected && typeof parsed.stack === 'string') fields.stack = printable(parsed.stack, 2000);
        return { text: printable(errorMessage(parsed.message)), fields };
      }
    } catch {
      // Not JSON after all: shown as it came, below.
    }
  }
  return { text: printable(raw, 1000), fields: {} };
}

/**
 * Registers a tracer provider (batching spans to the OTLP/HTTP exporter), the AsyncLocalStorage context
 * manager and W3C Trace Context and Baggage propagation; the SDK's own complaints (an export that failed)
 * go to `logger` as warnings.
 */
export async function startTracing(settings: TracingSettings, logger: Logger): Promise<Tracing> {
  const [sdk, core, resources, { AsyncLocalStorageContextManager }] = await Promise.all([
    import('@opentelemetry/sdk-trace'),
    import('@opentelemetry/core'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/context-async-hooks'),
  ]);
  const warn = (message: unknown, ...args: unknown[]) => {
    const { text, fields } = describeDiag(message);
    logger.warn({ args, ...fields }, `tracing: ${text}`);
  };
  diag.setLogger({ error: warn, warn, info: () => {}, debug: () => {}, verbose: () => {} }, DiagLogLevel.WARN);

  // Each of these decides for a whole trace (by the parent's flag or the trace id): the GraphQL plugin counts on
  // it to skip an unsampled request's operation span (graphql/plugins/tracing.ts).
  const { root, parentBased, ratio } = settings.sampler;
  const rootSampler =
    root === 'always_on'
      ? new sdk.AlwaysOnSampler()
      : root === 'always_off'
        ? new sdk.AlwaysOffSampler()
        : new sdk.TraceIdRatioBasedSampler(ratio);
  const provider = new sdk.TracerProvider({
    // OTEL_RESOURCE_ATTRIBUTES first, then service.name: OTEL_SERVICE_NAME (or Roster's default) wins.
    resource: resources
      .defaultResource()
      .merge(resources.detectResources({ detectors: [resources.envDetector] }))
      .merge(resources.resourceFromAttributes({ 'service.name': settings.serviceName })),
    sampler: parentBased ? new sdk.ParentBasedSampler({ root: rootSampler }) : rootSampler,
    spanProcessors: [new sdk.BatchSpanProcessor({ exporter: await exporterFor(settings), ...batchOptions(settings) })],
  });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(
    new core.CompositePropagator({
      propagators: [new core.W3CTraceContextPropagator(), new core.W3CBaggagePropagator()],
    }),
  );
  trace.setGlobalTracerProvider(provider);
  return {
    async shutdown() {
      let timer: NodeJS.Timeout | undefined;
      const limit = new Promise<void>((resolve) => (timer = setTimeout(resolve, FLUSH_LIMIT_MS).unref()));
      const flushed = provider.shutdown().catch((err: unknown) => logger.warn({ err }, 'tracing: spans not flushed'));
      await Promise.race([flushed, limit]);
      clearTimeout(timer);
    },
  };
}
