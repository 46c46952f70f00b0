import cors from 'cors';

/**
 * CORS for the bearer-token APIs (/graphql, its SDL, its live stream, /openid/userinfo): any origin may call them, as
 * GitHub's API allows, because they read no cookies: a cross-site page has no ambient credential to
 * borrow. A fixed policy, never reflecting the request: a preflight is answered here, before the bearer
 * resolver, the rate limit or the database; every other answer (401, 4xx, 429, 503) carries the headers
 * so a browser app can read the error.
 */
export const bearerApiCors = cors({
  origin: '*',
  credentials: false,
  methods: ['GET', 'POST', 'OPTIONS'],
  allowedHeaders: ['Authorization', 'Content-Type', 'Accept', 'If-None-Match', 'X-Request-Id', 'Last-Event-ID'],
  exposedHeaders: [
    'ETag',
    'X-RateLimit-Limit',
    'X-RateLimit-Remaining',
    'X-RateLimit-Used',
    'X-RateLimit-Reset',
    'Retry-After',
    'X-Request-Id',
    'WWW-Authenticate',
  ],
  // Browsers cap it (Chromium at 2 h); a day for the others.
  maxAge: 86400,
  preflightContinue: false,
  optionsSuccessStatus: 204,
});
