import type { NextFunction, Request, RequestHandler, Response } from 'express';

const isThenable = (value: unknown): value is PromiseLike<unknown> =>
  typeof (value as { then?: unknown } | null)?.then === 'function';

/**
 * Middleware run one after another as one handler, as Express runs them listed in one `use`: a throw, a
 * rejected promise or `next(err)` goes to the error handlers, `next('route')` goes on to the next one,
 * `next('router')` leaves the router, `req.next` is the sequence's own, and `next()` from the last goes on.
 * Express's router spends a match, a closure and its params bookkeeping on each layer; the API's dozen
 * checks on every request need none of it.
 */
export function inSequence(...handlers: RequestHandler[]): RequestHandler {
  // An error handler (four parameters) would be called with the wrong arguments here.
  if (handlers.some((h) => h.length > 3)) throw new TypeError('inSequence takes no error handler');
  return (req: Request, res: Response, next: NextFunction) => {
    const outer = req.next;
    let i = 0;
    const leave = (err?: unknown) => {
      req.next = outer;
      next(err);
    };
    const step = (err?: unknown): void => {
      if (err && err !== 'route') {
        leave(err);
        return;
      }
      const handler = handlers[i++];
      if (handler === undefined) {
        leave();
        return;
      }
      try {
        const result: unknown = handler(req, res, step);
        if (isThenable(result)) result.then(undefined, (e: unknown) => leave(e || new Error('Rejected promise')));
      } catch (e) {
        leave(e);
      }
    };
    req.next = step;
    step();
  };
}
