import { setTimeout as sleep } from 'node:timers/promises';
import { createClient } from 'graphql-sse';
import type { CheckinSubscription as Checkin } from '../client/generated/graphql.js';
import { RosterError, type GraphQLError, type Roster } from '../client/roster.js';
import { CheckinSubscription } from './operations.js';

export type Change = Checkin['changes'];

/** A live stream of one event's check-in changes. */
export interface Following {
  /** Closes the stream; `done` resolves then. */
  stop(): void;
  /** Resolves once stopped; rejects with Roster's refusal (a bad token, an expired cursor, …). */
  done: Promise<void>;
}

const MAX_RETRY_DELAY_MS = 30_000;

/** Roster's JSON refusal (401, 403, 400, …) as the client's RosterError. */
async function refusalOf(res: Response): Promise<RosterError> {
  const body = (await res.json().catch(() => ({}))) as { errors?: GraphQLError[] };
  return new RosterError(res.status, body.errors ?? []);
}

/**
 * Follows the event's registrations after `cursor` over /graphql/stream, calling `handle` with each change
 * in order. Every (re)connection sends `Last-Event-ID`: the cursor of the last change handled, so Roster first
 * sends what was missed while disconnected, then live ones: no gap, no duplicate.
 */
export function follow(
  roster: Roster,
  event: string,
  cursor: string,
  handle: (change: Change) => void,
  print: (line: string) => void,
): Following {
  const stopped = new AbortController();
  // The last answer that was not a stream: graphql-sse retries every such answer, Roster's refusals too.
  let refused: Response | undefined;
  // Reconnections since the last stream opened (graphql-sse's own count waits for a result to start again).
  let attempts = 0;
  const client = createClient({
    url: new URL('/graphql/stream', roster.url).href,
    // One stream per subscription, authenticated by its own request: what Roster serves.
    singleConnection: false,
    headers: () => ({ Authorization: `Bearer ${roster.token}`, 'Last-Event-ID': cursor }),
    fetchFn: async (input: string | URL | Request, init?: RequestInit) => {
      refused = undefined;
      const res = await fetch(input, init);
      if (!res.ok) refused = res;
      return res;
    },
    retryAttempts: Infinity,
    async retry() {
      // A refusal is final (a bad token, a cursor Roster never gave out) but for "too many" (429).
      if (refused && refused.status !== 429 && refused.status < 500) throw await refusalOf(refused);
      const retryAfter = Number(refused?.headers.get('retry-after')) * 1000 || 0;
      await refused?.body?.cancel();
      const delay = Math.max(retryAfter, Math.min(MAX_RETRY_DELAY_MS, 500 * 2 ** attempts++));
      print(`Stream interrupted: reconnecting in ${(delay / 1000).toFixed(1)} s, after ${cursor}`);
      await sleep(delay, undefined, { signal: stopped.signal });
    },
  });

  let failure: RosterError | undefined;
  const done = new Promise<void>((resolve, reject) => {
    client.subscribe<Checkin>(
      { query: CheckinSubscription.toString(), variables: { event } },
      {
        next(result) {
          // A stream's last result may be its reason to end (the token expired, the rate limit): `complete` follows.
          if (result.errors?.length) {
            // Parsed JSON, as Roster sent it: graphql-sse types it as graphql-js's class.
            failure = new RosterError(200, result.errors as unknown as GraphQLError[]);
            return;
          }
          if (!result.data) return;
          // Handled whole before the next one is read: the cursor is that of the last change handled.
          handle(result.data.changes);
          cursor = result.data.changes.cursor;
        },
        error: reject,
        complete: () => (failure ? reject(failure) : resolve()),
      },
      { connected: () => (attempts = 0) },
    );
  });
  return {
    stop() {
      stopped.abort();
      client.dispose();
    },
    done: done.finally(() => client.dispose()),
  };
}
