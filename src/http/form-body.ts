import express, { type RequestHandler } from 'express';

const FORM = 'application/x-www-form-urlencoded';

/** An error the app's error handler answers as a 4xx with this one-line reason. */
const refusal = (status: number, message: string) => Object.assign(new Error(message), { status, expose: true });

/**
 * How every page route reads its form: a urlencoded body (UTF-8, at most `limit`, 20 fields) or none.
 * A body of another type is refused with 415, not left unparsed for the handler to trip over; with no
 * body, `req.body` is an empty object. Field values are strings, or arrays when a field is repeated.
 */
export function formBody(limit: string): RequestHandler {
  const parse = express.urlencoded({ extended: false, limit, parameterLimit: 20 });
  return (req, res, next) => {
    // req.is is null without a body, false with a body of another type; an empty one is no body either.
    const empty = req.headers['content-length'] === '0';
    if (req.is(FORM) === false && !empty) return next(refusal(415, `Send the form as ${FORM}.`));
    parse(req, res, (err?: unknown) => {
      if (err) return next(err);
      req.body ??= {};
      next();
    });
  };
}
