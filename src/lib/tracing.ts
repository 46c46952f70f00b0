import { context, trace, type Span, type Tracer } from '@opentelemetry/api';

// What every layer that makes spans shares. Until observability/tracing.ts registers the SDK (only when an
// OTLP endpoint is set) the API's tracer is a no-op, and nothing here records anything.

/** The instrumentation scope every span of Roster's is made under. */
export const TRACER_NAME = 'roster';

/** Roster's tracer: a proxy that delegates to the SDK once one is registered (looked up once, then kept). */
const proxy: Tracer = trace.getTracer(TRACER_NAME);
export const tracer = (): Tracer => proxy;

/**
 * The span being recorded for the work under way, if any. SQL spans are made only under one: the
 * background polls (webhooks, live streams, the sweeper) would otherwise each start a trace of their own.
 */
export function recordingParent(): Span | undefined {
  const span = trace.getSpan(context.active());
  return span?.isRecording() ? span : undefined;
}

/** One line for a span's status message: the first line of an error's message. */
export const errorMessage = (err: unknown): string =>
  (err instanceof Error ? err.message : String(err)).split('\n')[0]!.slice(0, 200);

/** `error.type` of the semantic conventions: the error's code when it has one, else its class. */
export function errorType(err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && code) return code;
  return err instanceof Error ? err.constructor.name : '_OTHER';
}
