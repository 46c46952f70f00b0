import type { NextFunction, Request, Response } from 'express';
import type { Logger } from 'pino';
import { requestInfo } from '../http/locals.js';
import { routeLabel } from '../http/route-format.js';
import type { Metrics } from './metrics.js';

/** One JSON log line and the metrics per request: never a token, a password or a body. */
export function requestLog(logger: Logger, metrics: Metrics) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const started = process.hrtime.bigint();
    const path = req.path; // captured now: routers rewrite it on the way down
    res.on('finish', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const { viewer } = res.locals;
      const info = requestInfo(res);
      const { operationName: operation, cost, replay } = info;
      const labels = {
        route: routeLabel(path),
        operation: metrics.operationLabel(operation ?? ''),
        status: String(res.statusCode),
      };
      metrics.observeRequest(labels, seconds, info);
      logger.info(
        {
          requestId: res.locals.requestId,
          method: req.method,
          path,
          status: res.statusCode,
          durationMs: Math.round(seconds * 1e6) / 1e3,
          tokenKind: viewer?.kind,
          operationName: operation,
          cost,
          replay,
        },
        'request',
      );
    });
    next();
  };
}
