import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
} from '@opentelemetry/api';
import type { NextFunction, Request, Response } from 'express';
import { familyOf } from '../http/route-format.js';
import { tracer } from '../lib/tracing.js';

// The HTTP server span of every request (the HTTP semantic conventions), mounted first when tracing is on.
// Made here rather than by @opentelemetry/instrumentation-http: that patches node:http through require
// hooks, which an ES module app gets only with a loader hook at start (`--import`), and it would patch
// the webhook sender's requests too, which make their own spans (webhooks/send-webhook.ts).

const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'CONNECT', 'OPTIONS', 'TRACE', 'PATCH']);

/**
 * Starts the server span as the child of an incoming W3C `traceparent` (else a new trace), runs the rest of
 * the request in its context, and ends it when the response is done. Never the query string: a GET
 * /graphql carries the query and its variables there.
 */
export function httpSpans() {
  return (req: Request, res: Response, next: NextFunction): void => {
    const parent = propagation.extract(ROOT_CONTEXT, req.headers);
    const method = KNOWN_METHODS.has(req.method) ? req.method : '_OTHER';
    const path = req.path;
    // The route family is the low-cardinality route; oidc-provider's paths are its own (no family).
    const route = familyOf(path)?.label;
    // No attributes at the start: no sampler of ours reads them, and an unsampled request then builds none.
    const span = tracer().startSpan(route ? `${method} ${route}` : method, { kind: SpanKind.SERVER }, parent);
    if (span.isRecording()) {
      const attributes: Attributes = {
        'http.request.method': method,
        'url.path': path,
        'url.scheme': req.protocol,
        'network.protocol.version': req.httpVersion,
      };
      if (route) attributes['http.route'] = route;
      const agent = req.headers['user-agent'];
      if (agent) attributes['user_agent.original'] = agent;
      span.setAttributes(attributes);
    }
    res.once('close', () => {
      span.setAttribute('http.response.status_code', res.statusCode);
      if (res.locals.requestId) span.setAttribute('roster.request_id', res.locals.requestId);
      if (res.statusCode >= 500) {
        span.setAttribute('error.type', String(res.statusCode));
        span.setStatus({ code: SpanStatusCode.ERROR });
      }
      // Closed before the whole answer was written: the client went away.
      if (!res.writableFinished) span.setAttribute('error.type', 'aborted');
      span.end();
    });
    context.with(trace.setSpan(parent, span), next);
  };
}
