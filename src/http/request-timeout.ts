import type { Request, RequestHandler, Response } from 'express';

/**
 * A request still unanswered after `ms` gets a 503 with a JSON error and Retry-After, instead of
 * hanging; whatever the handler writes later is dropped.
 */
export function requestTimeout(ms: number, onTimeout: (req: Request, res: Response) => void): RequestHandler {
  return (req, res, next) => {
    const timer = setTimeout(() => {
      if (res.headersSent) return;
      onTimeout(req, res);
      res.locals.timedOut = true;
      res.status(503).set({ 'Retry-After': '1', 'Cache-Control': 'no-store', Connection: 'close' });
      res.json({
        errors: [
          {
            message: `The request took longer than ${ms} ms and was abandoned; try again.`,
            extensions: { code: 'REQUEST_TIMEOUT', requestId: res.locals.requestId as string | undefined },
          },
        ],
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
