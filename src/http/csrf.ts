import type { Request, Response } from 'express';
import { doubleCsrf } from 'csrf-csrf';

export interface Csrf {
  /** A token for a form of `scope` (an interaction uid, an account session); also sets its cookie on `path`. */
  issue(req: Request, res: Response, scope: string, path: string): string;
  /** Whether the submitted `_csrf` field matches its cookie and `scope`. */
  verify(req: Request, scope: string): boolean;
}

/** Signed double-submit cookies (csrf-csrf), each bound to what the form acts on. Needs cookie-parser and a parsed body. */
export function createCsrf(secret: string, secure: boolean): Csrf {
  const scopes = new WeakMap<Request, string>();
  const { generateCsrfToken, validateRequest } = doubleCsrf({
    getSecret: () => secret,
    getSessionIdentifier: (req) => scopes.get(req) ?? '',
    // __Secure- needs HTTPS; one cookie per path lets two sign-ins in two tabs coexist.
    cookieName: secure ? '__Secure-roster.csrf' : 'roster.csrf',
    cookieOptions: { sameSite: 'lax', secure, httpOnly: true },
    getCsrfTokenFromRequest: (req) => {
      const body = req.body as Record<string, unknown> | undefined;
      return typeof body?._csrf === 'string' ? body._csrf : undefined;
    },
  });
  return {
    issue(req, res, scope, path) {
      scopes.set(req, scope);
      return generateCsrfToken(req, res, { cookieOptions: { sameSite: 'lax', secure, httpOnly: true, path } });
    },
    verify(req, scope) {
      scopes.set(req, scope);
      return validateRequest(req);
    },
  };
}
