import type { ServerResponse } from 'node:http';
import type { Response } from 'express';
import type { Viewer } from '../services/viewer.js';
import type { Epochs } from '../stores/epoch-store.js';
import type { AnswerReads } from '../lib/answer-reads.js';

/** What the rest of the request learns for the log line: set by the GraphQL plugins. */
export interface RequestInfo {
  operationName?: string;
  /** GraphQL cost computed before execution. */
  cost?: number;
  /** An answer without data (a request error): never a 304. */
  requestError?: boolean;
  /** The answer may be replayed while the data stands still: complete, and no field that changes by itself. */
  cacheable?: boolean;
  /** The replay cache was consulted: `hit` replayed an answer, `miss` left it to Apollo. */
  replay?: 'hit' | 'miss';
  /** Set by the replay cache on a miss: the registrations the answer reads, recorded as it reads them. */
  reads?: AnswerReads;
}

// Everything a request carries from one step to the next lives in res.locals, declared here and nowhere else.
declare module 'express-serve-static-core' {
  interface Locals {
    /** Set first of all (request-id.ts): the id echoed in X-Request-Id and quoted in logs and 5xx answers. */
    requestId: string;
    /** Who the bearer token speaks for, once `requireViewer` has run. */
    viewer?: Viewer;
    /** When the bearer token ends (epoch ms; Infinity for an app token), once `requireViewer` has run. */
    tokenExpiresAt?: number;
    /** The database's epochs, read by `requireViewer` before the token was resolved... */
    epochs?: Epochs;
    /** ...and when they were read (performance.now()). */
    epochsReadAt?: number;
    /** The request timeout has answered 503: whatever fails later is moot. */
    timedOut?: boolean;
    /** A GraphQL read: its POST may be answered 304 too (graphql/conditional.ts). */
    revalidate?: true;
    /** Filled in by the GraphQL plugins, read by the request log and the 304 check. */
    info?: RequestInfo;
  }
}

export const requestInfo = (res: Response): RequestInfo => (res.locals.info ??= {});

// oidc-provider's hooks see Node's response object, which under Express is Express's, locals and all.
const isExpressResponse = (res: ServerResponse): res is Response => 'locals' in res;

/** SERVICE_NAME, which app.ts keeps in app.locals: every page's frame and some of its words show it. */
export function serviceNameOf(res: ServerResponse): string {
  const name: unknown = isExpressResponse(res) ? res.app.locals.serviceName : undefined;
  if (typeof name !== 'string') throw new Error('app.locals.serviceName is not set');
  return name;
}

/** The request id, from a hook of oidc-provider (a Koa context's `ctx.res`). */
export const requestIdOf = (res: ServerResponse): string | undefined =>
  isExpressResponse(res) ? res.locals.requestId : undefined;
