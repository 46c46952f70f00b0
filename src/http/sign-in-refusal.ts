import type { Response } from 'express';
import type { SignInRefusal } from '../services/sign-in.js';

const STATUS: Record<SignInRefusal['reason'], number> = { incomplete: 400, refused: 401, throttled: 429 };

/** A refused sign-in as both sign-in forms answer it: its status (and Retry-After), for the form to render. */
export function signInRefusalStatus(res: Response, refusal: SignInRefusal): number {
  if (refusal.retryAfter !== undefined) res.set('Retry-After', String(refusal.retryAfter));
  return STATUS[refusal.reason];
}
