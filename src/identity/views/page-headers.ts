import type { RequestHandler } from 'express';

/** Our pages load one stylesheet and nothing else, are never framed, and leak no interaction URL as referrer. */
export const pageHeaders: RequestHandler = (_req, res, next) => {
  // No form-action: Chromium applies it to the redirect back to the app after a form post.
  res.set({
    'Content-Security-Policy':
      "default-src 'none'; style-src 'self'; img-src 'self'; frame-ancestors 'none'; base-uri 'none'",
    'X-Frame-Options': 'DENY',
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
  });
  next();
};
