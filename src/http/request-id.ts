import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';

/** The caller's X-Request-Id when it is a plain token (a proxy's, say), else a new one; echoed on the answer. */
export const requestId: RequestHandler = (req, res, next) => {
  const incoming = req.get('x-request-id');
  const id = incoming && /^[\w.:-]{1,128}$/.test(incoming) ? incoming : randomUUID();
  res.locals.requestId = id;
  res.set('X-Request-Id', id);
  next();
};
