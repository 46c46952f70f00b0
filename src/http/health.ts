import { Router } from 'express';
import type { Logger } from 'pino';
import type { HealthStore } from '../stores/health-store.js';
import { PATHS } from './paths.js';

/** Liveness (the process answers) and readiness (the database answers, and no shutdown has begun). */
export function healthRouter(deps: { health: HealthStore; logger: Logger; shuttingDown: () => boolean }): Router {
  const router = Router();
  router.get(PATHS.healthz, (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get(PATHS.readyz, async (_req, res) => {
    if (deps.shuttingDown()) {
      res.status(503).json({ status: 'shutting down' });
      return;
    }
    try {
      await deps.health.ping();
      res.json({ status: 'ready' });
    } catch (err) {
      deps.logger.error({ err, requestId: res.locals.requestId }, 'database not reachable');
      res.status(503).json({ status: 'unavailable', error: 'The database is not reachable.' });
    }
  });
  return router;
}
