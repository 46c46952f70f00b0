import type { Response } from 'express';

/** Answers `status` with an OAuth error body (RFC 6749 §5.2, RFC 6750 §3), as the userinfo endpoint's clients expect. */
export function sendOAuthError(res: Response, status: number, error: string, description: string): void {
  res.status(status).json({ error, error_description: description });
}
