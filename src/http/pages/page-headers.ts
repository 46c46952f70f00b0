import { randomBytes } from 'node:crypto';
import type { RequestHandler } from 'express';

// No form-action: Chromium applies it to the redirect back to the app after a form post.
const POLICY = "default-src 'none'; style-src 'self'; img-src 'self'; frame-ancestors 'none'; base-uri 'none'";

/** The policy of the pages we render: they run no script, and default-src 'none' refuses every one. */
export const NO_SCRIPT_POLICY = POLICY;

/**
 * Pages are never framed and leak no interaction URL as referrer. The default policy is for the pages
 * oidc-provider renders itself (form_post, the signed-out logout): it appends the sha256 of the inline script it
 * emits to our script-src, which therefore starts from a fresh nonce that no element carries ('none' cannot be
 * combined with a hash). Pages we render replace it with NO_SCRIPT_POLICY.
 */
export const pageHeaders: RequestHandler = (_req, res, next) => {
  res.set({
    'Content-Security-Policy': `${POLICY}; script-src 'nonce-${randomBytes(16).toString('base64')}'`,
    'X-Frame-Options': 'DENY',
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
  });
  next();
};
