import type { RequestListener, ServerResponse } from 'node:http';
import type { Registry } from 'prom-client';
import { jsonErrorBody } from '../http/json-error.js';
import { PATHS } from '../http/paths.js';

function refuse(res: ServerResponse, status: number, code: string, message: string): void {
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store' });
  res.end(JSON.stringify(jsonErrorBody(code, message)));
}

/** The METRICS_PORT listener: `GET /metrics` (Prometheus text) and nothing else. */
export function metricsListener(registry: Registry, onError: (err: unknown) => void): RequestListener {
  return (req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path !== PATHS.metrics) return refuse(res, 404, 'NOT_FOUND', `Only ${PATHS.metrics} is served on this port.`);
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('Allow', 'GET, HEAD');
      return refuse(res, 405, 'METHOD_NOT_ALLOWED', 'Use GET for /metrics.');
    }
    registry.metrics().then(
      (text) => {
        res.writeHead(200, { 'Content-Type': registry.contentType, 'Cache-Control': 'no-store' });
        res.end(req.method === 'HEAD' ? undefined : text);
      },
      (err: unknown) => {
        onError(err);
        refuse(res, 500, 'INTERNAL_SERVER_ERROR', 'Internal server error');
      },
    );
  };
}
