// The OpenTelemetry settings Roster reads itself (the standard OTEL_* names): whether to trace, and how.
// The OTLP exporter reads its own further ones (headers, timeout, compression, certificates).

export type OtlpProtocol = 'http/protobuf' | 'http/json';

export interface TracingSettings {
  /** Where spans are POSTed: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as given, or OTEL_EXPORTER_OTLP_ENDPOINT + /v1/traces. */
  url: string;
  /** OTEL_EXPORTER_OTLP_(TRACES_)PROTOCOL: http/protobuf (the standard's default) or http/json. */
  protocol: OtlpProtocol;
  /** OTEL_SERVICE_NAME: the resource's service.name. */
  serviceName: string;
  /** OTEL_TRACES_SAMPLER and its ratio (OTEL_TRACES_SAMPLER_ARG, for the traceidratio samplers). */
  sampler: { root: 'always_on' | 'always_off' | 'traceidratio'; parentBased: boolean; ratio: number };
  /** OTEL_BSP_SCHEDULE_DELAY: milliseconds between two exports of the finished spans. */
  scheduleDelayMs: number;
  /** OTEL_BSP_MAX_EXPORT_BATCH_SIZE: the most spans one export carries; a full batch goes at once. */
  maxExportBatchSize: number;
  /** OTEL_BSP_MAX_QUEUE_SIZE: the most finished spans kept for export; more are dropped. */
  maxQueueSize: number;
  /** OTEL_BSP_EXPORT_TIMEOUT: milliseconds an export may take before it is given up. */
  exportTimeoutMs: number;
  /** TRACING_GRAPHQL_DOCUMENT: the operation span carries its document, literal values replaced. */
  graphqlDocument: boolean;
}

const PROTOCOLS: readonly string[] = ['http/protobuf', 'http/json'];
const SAMPLERS: readonly string[] = [
  'always_on',
  'always_off',
  'traceidratio',
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
];

const text = (raw: string | undefined): string => (raw ?? '').trim();

function endpointUrl(name: string, raw: string, fail: (message: string) => Error): URL | undefined {
  if (!raw) return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw fail(`${name} must be an http:// or https:// URL, got ${JSON.stringify(raw)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw fail(`${name} must be an http:// or https:// URL (OTLP over HTTP), got ${JSON.stringify(raw)}`);
  }
  return url;
}

function flag(name: string, raw: string, fail: (message: string) => Error): boolean {
  if (raw === '' || /^false$/i.test(raw)) return false;
  if (/^true$/i.test(raw)) return true;
  throw fail(`${name} must be true or false, got ${JSON.stringify(raw)}`);
}

/** The most spans the queue may hold: a span waiting for export holds about a kilobyte. */
const MAX_QUEUE = 100_000;

/** A whole number from 1 to `max`: a batch variable (OTEL_BSP_*), `fallback` when unset. */
function count(name: string, raw: string, fallback: number, max: number, fail: (message: string) => Error): number {
  if (!raw) return fallback;
  if (!/^\d{1,7}$/.test(raw) || Number(raw) < 1 || Number(raw) > max) {
    throw fail(`${name} must be a whole number from 1 to ${max}, got ${JSON.stringify(raw.slice(0, 40))}`);
  }
  return Number(raw);
}

/**
 * Tracing's settings, or undefined when nothing is to be traced: no endpoint, or OTEL_SDK_DISABLED=true.
 * Every variable is read (and checked) either way; `fail` makes the error that stops the start.
 */
export function tracingSettings(env: NodeJS.ProcessEnv, fail: (message: string) => Error): TracingSettings | undefined {
  const disabled = flag('OTEL_SDK_DISABLED', text(env.OTEL_SDK_DISABLED), fail);
  const generic = endpointUrl('OTEL_EXPORTER_OTLP_ENDPOINT', text(env.OTEL_EXPORTER_OTLP_ENDPOINT), fail);
  const traces = endpointUrl('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', text(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT), fail);
  const protocolName = text(env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL)
    ? 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL'
    : 'OTEL_EXPORTER_OTLP_PROTOCOL';
  const protocol = text(env[protocolName]) || 'http/protobuf';
  if (!PROTOCOLS.includes(protocol)) {
    throw fail(
      `${protocolName} must be http/protobuf or http/json (grpc is not supported), got ${JSON.stringify(protocol)}`,
    );
  }
  const sampler = text(env.OTEL_TRACES_SAMPLER) || 'parentbased_always_on';
  if (!SAMPLERS.includes(sampler))
    throw fail(`OTEL_TRACES_SAMPLER must be one of ${SAMPLERS.join(', ')}, got ${JSON.stringify(sampler)}`);
  const ratioText = text(env.OTEL_TRACES_SAMPLER_ARG) || '1';
  const ratio = Number(ratioText);
  if (!/^\d*\.?\d+$/.test(ratioText) || ratio > 1) {
    throw fail(`OTEL_TRACES_SAMPLER_ARG must be a ratio from 0 to 1, got ${JSON.stringify(ratioText)}`);
  }
  const delayText = text(env.OTEL_BSP_SCHEDULE_DELAY) || '5000';
  if (!/^\d{1,7}$/.test(delayText)) {
    throw fail(
      `OTEL_BSP_SCHEDULE_DELAY must be a number of milliseconds (0–9999999), got ${JSON.stringify(delayText)}`,
    );
  }
  // The SDK reads none of the batch variables itself: each is read here, by its standard name and default.
  const maxQueueSize = count('OTEL_BSP_MAX_QUEUE_SIZE', text(env.OTEL_BSP_MAX_QUEUE_SIZE), 2048, MAX_QUEUE, fail);
  const batchText = text(env.OTEL_BSP_MAX_EXPORT_BATCH_SIZE);
  // Unset, the batch fits whatever queue was chosen; set, it must.
  const maxExportBatchSize = count(
    'OTEL_BSP_MAX_EXPORT_BATCH_SIZE',
    batchText,
    Math.min(512, maxQueueSize),
    MAX_QUEUE,
    fail,
  );
  if (maxExportBatchSize > maxQueueSize) {
    throw fail(
      `OTEL_BSP_MAX_EXPORT_BATCH_SIZE (${maxExportBatchSize}) must not be more than OTEL_BSP_MAX_QUEUE_SIZE (${maxQueueSize})`,
    );
  }
  const exportTimeoutMs = count('OTEL_BSP_EXPORT_TIMEOUT', text(env.OTEL_BSP_EXPORT_TIMEOUT), 30_000, 999_999, fail);
  const serviceName = text(env.OTEL_SERVICE_NAME) || 'roster';
  const graphqlDocument = flag('TRACING_GRAPHQL_DOCUMENT', text(env.TRACING_GRAPHQL_DOCUMENT), fail);
  // The generic endpoint is a base: the signal's path goes under whatever path it has (the OTLP exporter spec).
  const url = traces?.href ?? (generic && new URL('v1/traces', generic.href.replace(/\/?$/, '/')).href);
  if (disabled || !url) return undefined;
  return {
    url,
    protocol: protocol as OtlpProtocol,
    serviceName,
    sampler: {
      root: sampler.replace('parentbased_', '') as TracingSettings['sampler']['root'],
      parentBased: sampler.startsWith('parentbased_'),
      ratio,
    },
    scheduleDelayMs: Number(delayText),
    maxExportBatchSize,
    maxQueueSize,
    exportTimeoutMs,
    graphqlDocument,
  };
}
