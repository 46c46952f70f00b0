import { Router } from 'express';
import type { ViewerLookup } from '../services/bearer.js';
import { bearerApiCors } from '../http/cors.js';
import { RateLimited, type RateLimiter } from '../services/rate-limit.js';
import { rateLimitHeaders, sendRateLimited } from '../http/rate-limit-headers.js';
import { requireViewer, sendBearerError, viewerOf } from '../http/bearer-auth.js';
import { sendOAuthError } from '../http/oauth-error.js';
import type { Services } from '../services/services.js';
import { insufficientScope, invalidToken } from '../http/bearer-error.js';
import { allClaims, claimsForScopes, pairwiseSubject } from './claims.js';

/** GET/POST userinfo (mounted at PATHS.userinfo): the signed-in user's claims, by granted scope. */
export function userinfoRouter(deps: {
  services: Services;
  viewers: ViewerLookup;
  pairwiseSalt: string;
  limiter: RateLimiter;
}): Router {
  const router = Router();
  // Before oidc-provider's own CORS: the same any-origin policy as /graphql, preflight answered here.
  router.all('/', bearerApiCors, (req, res, next) => {
    if (req.method !== 'GET' && req.method !== 'POST') {
      res.set('Allow', 'GET, POST');
      return sendOAuthError(res, 405, 'invalid_request', 'Use GET or POST.');
    }
    next();
  });
  router.all('/', requireViewer(deps.viewers, 'oauth'), async (_req, res, next) => {
    try {
      const viewer = viewerOf(res);
      if (viewer.kind !== 'user') return sendBearerError(res, invalidToken(), 'oauth');
      if (!viewer.scopes.includes('openid')) {
        return sendBearerError(res, insufficientScope('openid'), 'oauth');
      }
      // One point from the same hourly budget as GraphQL.
      try {
        res.set(rateLimitHeaders(await deps.limiter.consume(viewer, 1)));
      } catch (err) {
        if (!(err instanceof RateLimited)) throw err;
        return sendRateLimited(res, err, 'oauth');
      }
      const user = await deps.services.users.findById(viewer.userId);
      if (!user) return sendBearerError(res, invalidToken(), 'oauth');
      // Pairwise subjects keep apps from matching up a user; a personal token has no app, and its holder is the user.
      const sub = viewer.clientId === null ? user.uid : pairwiseSubject(viewer.clientId, user.uid, deps.pairwiseSalt);
      res.set('Cache-Control', 'no-store').json(claimsForScopes(allClaims(user, sub), viewer.scopes));
    } catch (err) {
      next(err);
    }
  });
  return router;
}
