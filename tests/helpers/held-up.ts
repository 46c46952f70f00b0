import { request } from 'node:http';
import { REUSE_WINDOW_MS } from '../../src/stores/rows-at-epoch.js';
import type { Stores } from '../../src/stores/stores.js';
import type { TestServer } from './harness.js';
import { until, within } from './wait.js';

export interface HeldUpRequest {
  /** Sends the rest of the body; the answer. */
  finish(): Promise<{ status: number; text: string }>;
  abandon(): void;
}

/**
 * Starts a GraphQL request whose body stops part way, with an app token of `ownerId`'s made through `stores`
 * and never resolved before (its lookup is the statement that follows the request's epochs read), and waits
 * until those epochs are older than the reuse window (stores/rows-at-epoch.ts).
 */
export async function heldUpRequest(
  server: TestServer,
  stores: Stores,
  ownerId: number,
  query: string,
  variables: Record<string, unknown>,
): Promise<HeldUpRequest> {
  const { appToken } = await stores.apps.create({
    ownerId,
    name: `Slow Body ${Math.random().toString(36).slice(2, 8)}`,
    redirectUris: ['https://slow.example/cb'],
  });
  let tokenLooked = false;
  const watch = (q: { sql?: string }) => (tokenLooked ||= /\bapp_tokens\b/.test(q.sql ?? ''));
  server.db.on('query', watch);
  const body = JSON.stringify({ query, variables });
  const req = request(`${server.url}/graphql`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${appToken}`, 'Content-Type': 'application/json', 'Content-Length': body.length },
  });
  const answer = new Promise<{ status: number; text: string }>((resolve, reject) => {
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, text }));
    });
    req.on('error', reject);
  });
  try {
    req.write(body.slice(0, 10));
    await until(() => tokenLooked, 'the token looked up');
  } finally {
    server.db.off('query', watch);
  }
  await new Promise((resolve) => setTimeout(resolve, REUSE_WINDOW_MS + 50));
  return {
    finish: () => {
      req.end(body.slice(10));
      return within(10_000, 'the answer', answer);
    },
    abandon: () => req.destroy(),
  };
}
