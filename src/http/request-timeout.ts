import type { RequestHandler, Response } from 'express';
import { sendFailure } from './route-format.js';

/**
 * A request still unanswered after `ms` gets a 503 with Retry-After, in its route's format (an error page
 * or the JSON error), instead of hanging; whatever the handler writes later is dropped.
 */
export function requestTimeout(ms: number, onTimeout: (path: string, res: Response) => void): RequestHandler {
  return (req, res, next) => {
    const path = req.path; // captured now: routers trim it on the way down
    const timer = setTimeout(() => {
      if (res.headersSent) return;
      onTimeout(path, res);
      res.locals.timedOut = true;
      res.set({ 'Retry-After': '1', 'Cache-Control': 'no-store', Connection: 'close' });
      sendFailure(res, path, {
        status: 503,
        code: 'REQUEST_TIMEOUT',
        message: `The request took longer than ${ms} ms and was abandoned; try again.`,
      });
      // The abandoned handler may still try to answer: let it write into the void.
      res.setHeader = () => res;
      res.writeHead = () => res;
      res.write = () => true;
      res.end = () => res;
    }, ms);
    res.on('close', () => clearTimeout(timer));
    next();
  };
}
