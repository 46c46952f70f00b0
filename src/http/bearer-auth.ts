import type { NextFunction, Request, Response } from 'express';
import { InvalidToken } from '../services/errors.js';
import type { ViewerLookup } from '../services/bearer.js';
import { API_SCOPE, mayReadApi } from '../services/policy.js';
import type { Viewer } from '../services/viewer.js';
import { BearerError, insufficientScope, invalidToken, malformedAuthorization, missingToken } from './bearer-error.js';
import { sendJsonError } from './json-error.js';
import { sendOAuthError } from './oauth-error.js';

// RFC 6750 §2.1 b64token syntax.
const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;
const MAX_TOKEN_LENGTH = 4096;

/** Extracts the token of `Authorization: Bearer <token>`; throws a BearerError otherwise. */
export function bearerToken(header: string | undefined): string {
  if (header === undefined || header.trim() === '') throw missingToken();
  const match = /^(\S+)(?: +(.*))?$/.exec(header.trim());
  if (!match || match[1]!.toLowerCase() !== 'bearer') throw missingToken();
  const token = match[2]?.trim() ?? '';
  if (token === '' || token.length > MAX_TOKEN_LENGTH || !B64TOKEN.test(token)) throw malformedAuthorization();
  return token;
}

/** The viewer resolved for this request by `requireViewer`. */
export function viewerOf(res: Response): Viewer {
  const { viewer } = res.locals;
  if (!viewer) throw new Error('viewerOf called on a route without requireViewer');
  return viewer;
}

/** Sends an RFC 6750 failure; `format` picks a GraphQL `errors` body or an OAuth `error` body. */
export function sendBearerError(res: Response, err: BearerError, format: 'graphql' | 'oauth'): void {
  res.set('WWW-Authenticate', err.wwwAuthenticate);
  if (format === 'graphql') sendJsonError(res, err.status, err.code, err.message);
  else sendOAuthError(res, err.status, err.error ?? 'invalid_request', err.message);
}

/** Resolves `Authorization: Bearer` into `res.locals.viewer`, or answers 401. */
export function requireViewer(viewers: ViewerLookup, format: 'graphql' | 'oauth') {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    try {
      const { viewer, epochs, epochsReadAt, expiresAt } = await viewers(bearerToken(req.headers.authorization));
      res.locals.viewer = viewer;
      res.locals.epochs = epochs;
      res.locals.epochsReadAt = epochsReadAt;
      res.locals.tokenExpiresAt = expiresAt;
    } catch (err) {
      if (err instanceof BearerError) return sendBearerError(res, err, format);
      if (err instanceof InvalidToken) return sendBearerError(res, invalidToken(), format);
      return next(err);
    }
    next();
  };
}

/** After requireViewer on the API: a user token without the API's scope is refused before anything runs. */
export function requireApiScope(_req: Request, res: Response, next: NextFunction): void {
  if (!mayReadApi(viewerOf(res))) return sendBearerError(res, insufficientScope(API_SCOPE), 'graphql');
  next();
}
