import { context, propagation, SpanKind, SpanStatusCode, trace, type Attributes, type Span } from '@opentelemetry/api';
import { errorType, tracer } from '../lib/tracing.js';

// Webhook delivery spans: one for each attempt the worker makes (its outcome), and the HTTP client span of
// the POST under it, whose context goes to the receiver as `traceparent`. With tracing off both are the
// API's no-op spans and its propagator adds no header.

/** The target's host and port, never its path or query (a receiver's URL may carry a token in either). */
function targetAttributes(raw: string): Attributes {
  try {
    const url = new URL(raw);
    const port = url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
    return {
      'http.request.method': 'POST',
      'url.scheme': url.protocol.slice(0, -1),
      'server.address': url.hostname.replace(/^\[(.*)\]$/, '$1'),
      'server.port': port,
    };
  } catch {
    return { 'http.request.method': 'POST' };
  }
}

/** What a POST reports, as far as its span needs it. */
interface Answered {
  status?: number;
  error?: string;
}

/**
 * Runs one POST (`send`, given the headers to send) in an HTTP client span, `traceparent` (and any
 * `tracestate`) added to `headers`, and records how it went.
 */
export async function inPostSpan<T extends Answered>(
  url: string,
  headers: Record<string, string>,
  send: (headers: Record<string, string>) => Promise<T>,
): Promise<T> {
  const span = tracer().startSpan('POST', { kind: SpanKind.CLIENT, attributes: targetAttributes(url) });
  const carried = { ...headers };
  propagation.inject(trace.setSpan(context.active(), span), carried);
  const result = await send(carried);
  if (result.status !== undefined) span.setAttribute('http.response.status_code', result.status);
  if (result.error !== undefined) {
    const answered = result.status !== undefined && result.status >= 300;
    span.setAttribute('error.type', answered ? String(result.status) : 'attempt_failed');
    span.setStatus({ code: SpanStatusCode.ERROR, message: result.error });
  }
  span.end();
  return result;
}

/** The ids a delivery attempt's span carries. */
export interface DeliveryIds {
  webhookId: number;
  deliveryId: number;
  attempt: number;
}

/** Runs one delivery attempt (preparing it, the POST, writing its outcome) in a span of its own: a new trace. */
export function inDeliverySpan(ids: DeliveryIds, run: (span: Span) => Promise<void>): Promise<void> {
  return tracer().startActiveSpan(
    'webhook delivery',
    {
      root: true,
      attributes: {
        'roster.webhook.id': ids.webhookId,
        'roster.webhook.delivery_id': ids.deliveryId,
        'roster.webhook.attempt': ids.attempt,
      },
    },
    async (span) => {
      try {
        await run(span);
      } catch (err) {
        span.setAttribute('error.type', errorType(err));
        span.setStatus({ code: SpanStatusCode.ERROR });
        throw err;
      } finally {
        span.end();
      }
    },
  );
}

/** The attempt's outcome on its span: delivered, retried, failed, skipped or released (for another try). */
export function recordOutcome(span: Span, outcome: string): void {
  span.setAttribute('roster.webhook.outcome', outcome);
  if (outcome === 'retried' || outcome === 'failed') span.setStatus({ code: SpanStatusCode.ERROR });
}
