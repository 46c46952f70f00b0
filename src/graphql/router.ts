import { readFileSync } from 'node:fs';
import { ApolloServer } from '@apollo/server';
import { makeExecutableSchema } from '@graphql-tools/schema';
import {
  ApolloServerPluginCacheControlDisabled,
  ApolloServerPluginLandingPageDisabled,
} from '@apollo/server/plugin/disabled';
import { expressMiddleware } from '@as-integrations/express5';
import express, { Router, type Request } from 'express';
import type { Logger } from 'pino';
import type { ViewerLookup } from '../services/bearer.js';
import { bearerApiCors } from '../http/cors.js';
import type { RateLimiter } from '../services/rate-limit.js';
import { requireApiScope, requireViewer, viewerOf } from '../http/bearer-auth.js';
import type { Config } from '../config.js';
import type { Services } from '../services/services.js';
import { conditionalRequests } from './conditional.js';
import { ASSETS_PATH, explorerAssets } from './explorer/assets.js';
import { explorerPage } from './explorer/page.js';
import {
  refuseBatches,
  refuseDeepParameters,
  refuseSpentBudget,
  requireJsonBody,
  verifyBody,
} from './request-guards.js';
import { buildContext, type GraphQLContext } from './context.js';
import { requestInfo } from '../http/locals.js';
import { inSequence } from '../http/in-sequence.js';
import { settleUrlParseCheck } from '../lib/url-parse.js';
import { PATHS } from '../http/paths.js';
import { errorMaskingPlugin, formatError } from './plugins/error-masking.js';
import { jitGateway } from './jit-executor.js';
import { LIMITS } from './limits.js';
import { mediaTypeStatusPlugin } from './plugins/media-type-status.js';
import { operationNamePlugin } from './plugins/operation-name.js';
import { queryLimitsPlugin, queryLimitsRule } from './plugins/query-limits.js';
import { readOnlyPlugin } from './plugins/read-only.js';
import { graphqlTracing } from './plugins/tracing.js';
import { CACHE_CONTROL, responseHeadersPlugin } from './plugins/response-headers.js';
import { resolvers } from './resolvers/index.js';
import { responseCache } from './response-cache.js';
import { createStreamRouter, type StreamRouter } from './stream/router.js';
import type { SlotRefusal } from './stream/slots.js';

// schema.graphql sits at the repo root, two levels above both src/graphql and dist/graphql.
export const SCHEMA_SDL = readFileSync(new URL('../../schema.graphql', import.meta.url), 'utf8');

export const MAX_BODY_BYTES = 100 * 1024;

export interface GraphqlDeps {
  services: Services;
  viewers: ViewerLookup;
  config: Config;
  logger: Logger;
  limiter: RateLimiter;
  /** A result was written to a live stream. */
  onStreamEvent?(): void;
  /** A live stream was refused for want of a slot. */
  onStreamRefused?(reason: SlotRefusal): void;
}

/** A browser opening /graphql: the explorer page, served without a token. */
const wantsLandingPage = (req: Request) =>
  req.method === 'GET' && req.query.query === undefined && (req.get('accept') ?? '').includes('text/html');

/** The /graphql router: SDL download, the explorer, then bearer auth and Apollo Server. */
export async function createGraphqlRouter(
  deps: GraphqlDeps,
): Promise<{ router: Router; streams: StreamRouter; stop(): Promise<void> }> {
  const schema = makeExecutableSchema({ typeDefs: SCHEMA_SDL, resolvers });
  // Only when tracing is on: otherwise no plugin hook and no wrapper runs per request.
  const tracing = deps.config.tracing && graphqlTracing({ document: deps.config.tracing.graphqlDocument });
  const apollo = new ApolloServer<GraphQLContext>({
    // The schema as written, executed by graphql-jit (Apollo's gateway interface is its executor hook).
    gateway: jitGateway(schema, tracing?.around),
    introspection: true,
    // Bearer tokens only, never ambient cookies: cross-site requests carry no credentials to abuse.
    csrfPrevention: false,
    includeStacktraceInErrorResponses: false,
    formatError,
    hideSchemaDetailsFromClientErrors: deps.config.production,
    // server.ts owns SIGTERM/SIGINT: Apollo's own handlers would stop it under our graceful shutdown.
    stopOnTerminationSignals: false,
    parseOptions: { maxTokens: LIMITS.maxTokens },
    validationRules: [queryLimitsRule],
    // Each error costs its message (suggestions, conflict reasons) and bytes: 20 say enough.
    validationOptions: { maxErrors: 20 },
    plugins: [
      ...(tracing ? [tracing.plugin] : []),
      ApolloServerPluginCacheControlDisabled(),
      // The router serves its own explorer page (Sandbox, or GraphiQL offline); Apollo's needs Apollo's CDN.
      ApolloServerPluginLandingPageDisabled(),
      responseHeadersPlugin(),
      mediaTypeStatusPlugin(),
      readOnlyPlugin(),
      operationNamePlugin(),
      queryLimitsPlugin(deps.limiter),
      errorMaskingPlugin(deps.logger),
    ],
  });
  await apollo.start();

  const router = Router();
  // First: the preflight is answered before any token is looked at, and every answer below is readable.
  router.use(bearerApiCors);
  router.get('/schema.graphql', (_req, res) => {
    res.type('application/graphql; charset=utf-8').send(SCHEMA_SDL);
  });
  const streams = createStreamRouter({
    schema,
    services: deps.services,
    viewers: deps.viewers,
    limiter: deps.limiter,
    logger: deps.logger,
    streamsMax: deps.config.streamsMax,
    streamsPerOwner: deps.config.streamsPerOwner,
    stallMs: deps.config.streamStallMs,
    production: deps.config.production,
    onEvent: () => deps.onStreamEvent?.(),
    onRefused: (reason) => deps.onStreamRefused?.(reason),
  });
  router.use(PATHS.graphqlStream.slice(PATHS.graphql.length), streams.router);
  settleUrlParseCheck();
  const apolloMiddleware = expressMiddleware(apollo, {
    context: async ({ res }) => {
      const { epochs, epochsReadAt } = res.locals;
      const at =
        epochs && epochsReadAt !== undefined
          ? { epoch: epochs.data, changes: epochs.changes, readAt: epochsReadAt }
          : undefined;
      return buildContext(viewerOf(res), deps.services, res.locals.requestId, requestInfo(res), at);
    },
  });
  // Mounted at its path: an API request never enters its router (which would end in a setImmediate).
  router.use(ASSETS_PATH, explorerAssets());
  const landingPage = explorerPage(deps.config);
  router.get('/', (req, res, next) => (wantsLandingPage(req) ? landingPage(req, res) : next()));
  // The explorer's redirect URI: the same page, whose script takes the code from the fragment (never sent here).
  router.get(PATHS.explorerCallback.slice(PATHS.graphql.length), landingPage);
  router.use(
    inSequence(
      // Answers made before Apollo (401, bad JSON, 413) are GraphQL responses too.
      (_req, res, next) => {
        res.set('Cache-Control', CACHE_CONTROL);
        next();
      },
      requireViewer(deps.viewers, 'graphql'),
      requireApiScope,
      refuseSpentBudget(deps.limiter),
      requireJsonBody,
      express.json({ limit: MAX_BODY_BYTES, verify: verifyBody }),
      refuseBatches,
      refuseDeepParameters,
      // A replay answers its own If-None-Match; the hook Express's send consults is for Apollo's answers.
      responseCache(
        deps.limiter,
        deps.config.responseCacheMb,
        (after, through, limit) => deps.services.changes.touched(after, through, limit),
        deps.logger,
      ),
      conditionalRequests,
      apolloMiddleware,
    ),
  );
  return { router, streams, stop: () => apollo.stop() };
}
