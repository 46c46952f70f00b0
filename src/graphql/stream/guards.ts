import type { NextFunction, Request, Response } from 'express';
import { sendJsonError } from '../../http/json-error.js';
import { decodeChangeCursor } from '../pagination.js';

/** `Last-Event-ID`, when sent: a change cursor's position (throws when it is not one this API gave out). */
export function lastEventIdOf(req: Request): number | null {
  const header = req.get('last-event-id');
  if (header === undefined || header === '') return null;
  return decodeChangeCursor(header, 'Last-Event-ID');
}

/** The 503 of a stream asked for (or not yet begun) while the instance shuts down. */
export function sendShuttingDown(res: Response): void {
  res.set('Retry-After', '1');
  sendJsonError(
    res,
    503,
    'SHUTTING_DOWN',
    'This instance is shutting down: open the stream again (with Last-Event-ID).',
  );
}

/** What a stream request must be before its body is read: POST or GET, for an event stream, while serving. */
export function streamRequestGuard(closing: () => boolean) {
  return (req: Request, res: Response, next: NextFunction): void => {
    res.set('Cache-Control', 'no-store');
    if (req.method !== 'GET' && req.method !== 'POST') {
      res.set('Allow', 'GET, POST');
      return sendJsonError(res, 405, 'BAD_REQUEST', 'Open a stream with POST (or GET).');
    }
    if (!req.accepts('text/event-stream') || !(req.get('accept') ?? '').includes('text/event-stream')) {
      const message = 'Send `Accept: text/event-stream`: this endpoint answers with a stream of events.';
      return sendJsonError(res, 406, 'BAD_REQUEST', message);
    }
    if (closing()) return sendShuttingDown(res);
    try {
      lastEventIdOf(req);
    } catch {
      return sendJsonError(res, 400, 'BAD_USER_INPUT', '`Last-Event-ID` is not a change cursor this API gave out.');
    }
    next();
  };
}
