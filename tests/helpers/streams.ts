import { createClient, type ExecutionResult } from 'graphql-sse';
import { decodeChangeCursor } from '../../src/graphql/pagination.js';
import type { TestServer } from './harness.js';
import { within } from './wait.js';

/** One Server-Sent Event as a client parses it (comments counted apart). */
export interface SseEvent {
  id?: string;
  event?: string;
  data: string;
}

export const SUBSCRIBE = `subscription($event: String, $types: [ChangeType!]) {
  changes(event: $event, types: $types) {
    cursor type eventSlug event { slug name } registration { id } registrant { name email } } }`;

/** Bound on opening a stream (its headers) or answering a refusal. */
export const OPEN_MS = 5000;

/** An open stream read as raw SSE: its events, comments, and the promise of its end. */
export interface RawStream {
  status: number;
  headers: Headers;
  events: SseEvent[];
  comments: number;
  /** Resolves when the response ends, whoever ended it. */
  ended: Promise<void>;
  /** The response has ended. */
  readonly done: boolean;
  /** Resolves once `n` events (of any kind) arrived; rejects after `ms` or when the stream ends short. */
  next(n: number, ms?: number): Promise<SseEvent[]>;
  /** Resolves once `holds` is true of the events; rejects after `ms`. */
  until(holds: (events: SseEvent[]) => boolean, what: string, ms?: number): Promise<void>;
  /** The body when the answer was not a stream. */
  text?: string;
  close(): void;
}

const opened = new Set<() => void>();

/** Closes every stream and client still open (afterEach: a failed test leaves none behind). */
export function closeStreams(): void {
  for (const close of opened) close();
  opened.clear();
}

/** Opens /graphql/stream with fetch (POST, or GET with the body as query parameters) and parses it as EventSource would. */
export async function openStream(
  server: Pick<TestServer, 'url'>,
  token: string | undefined,
  body: Record<string, unknown> = { query: SUBSCRIBE },
  headers: Record<string, string> = {},
  method: 'GET' | 'POST' = 'POST',
): Promise<RawStream> {
  const controller = new AbortController();
  const close = () => controller.abort();
  opened.add(close);
  const search = new URLSearchParams(
    Object.entries(body).map(([k, v]): [string, string] => [k, typeof v === 'string' ? v : JSON.stringify(v)]),
  );
  const res = await within(
    OPEN_MS,
    'the stream answered',
    fetch(`${server.url}/graphql/stream${method === 'GET' ? `?${search}` : ''}`, {
      method,
      headers: {
        accept: 'text/event-stream',
        ...(method === 'POST' ? { 'content-type': 'application/json' } : {}),
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...headers,
      },
      body: method === 'POST' ? JSON.stringify(body) : undefined,
      signal: controller.signal,
    }),
  );
  let done = false;
  const waiters = new Set<() => void>();
  const notify = () => {
    for (const waiter of [...waiters]) waiter();
  };
  const stream: RawStream = {
    status: res.status,
    headers: res.headers,
    events: [],
    comments: 0,
    ended: Promise.resolve(),
    get done() {
      return done;
    },
    next: (n, ms = 5000) =>
      stream.until((events) => events.length >= n, `${n} events`, ms).then(() => stream.events.slice(0, n)),
    until: (holds, what, ms = 5000) =>
      new Promise((resolve, reject) => {
        const finish = (err?: Error) => {
          clearTimeout(timer);
          waiters.delete(check);
          if (err) reject(err);
          else resolve();
        };
        const check = () => {
          if (holds(stream.events)) finish();
          else if (done) finish(new Error(`stream ended before ${what} (${stream.events.length} events)`));
        };
        const timer = setTimeout(() => finish(new Error(`${what}: not within ${ms} ms`)), ms);
        waiters.add(check);
        check();
      }),
    close: () => {
      opened.delete(close);
      close();
    },
  };
  if (!(res.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    stream.text = await res.text();
    done = true;
    return stream;
  }
  stream.ended = (async () => {
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const event = parseBlock(buffer.slice(0, end));
          buffer = buffer.slice(end + 2);
          if (event) stream.events.push(event);
          else stream.comments++;
        }
        notify();
      }
    } catch {
      // aborted by the test, or reset by the server
    }
    done = true;
    notify();
  })();
  return stream;
}

/** One SSE block: its fields, or undefined for a comment alone. */
function parseBlock(block: string): SseEvent | undefined {
  const event: SseEvent = { data: '' };
  let fields = 0;
  for (const line of block.split('\n')) {
    if (line.startsWith(':')) continue;
    const [name, ...rest] = line.split(':');
    const value = rest.join(':').replace(/^ /, '');
    fields++;
    if (name === 'id') event.id = value;
    else if (name === 'event') event.event = value;
    else if (name === 'data') event.data += value;
  }
  return fields ? event : undefined;
}

/** A change as a stream sends it: the fields its selection asked for (the default selection's at least). */
export type StreamedChange = Record<string, unknown> & { cursor: string; type: string; eventSlug: string };

export interface ChangePayload {
  data: { changes: StreamedChange } | null;
  errors?: { message: string; extensions: { code: string } & Record<string, unknown> }[];
}

/** The `changes` payload of a `next` event. */
export const payloadOf = (e: SseEvent) => JSON.parse(e.data) as ChangePayload;

/** The `next` events of a stream, in order. */
export const nextsOf = (events: SseEvent[]) => events.filter((e) => e.event === 'next');

/** The log position a change cursor (an SSE id) names. */
export const positionOf = (cursor: string) => decodeChangeCursor(cursor);

/** The positions of a stream's changes, in the order they came (events without an id are errors: none). */
export const positionsOf = (events: SseEvent[]) => nextsOf(events).map((e) => positionOf(e.id!));

/** Asserts the stream's last result is an error with `code`, then `complete`, then the end of the response. */
export async function expectEndedWith(stream: RawStream, code: string, ms = 5000): Promise<ChangePayload> {
  await stream.until((events) => events.at(-1)?.event === 'complete', `complete after ${code}`, ms);
  const last = stream.events.at(-2)!;
  expect(last.event).toBe('next');
  expect(last.id).toBeUndefined();
  const payload = payloadOf(last);
  expect(payload.data ?? null).toBeNull();
  expect(payload.errors).toHaveLength(1);
  expect(payload.errors![0]!.extensions.code).toBe(code);
  await within(ms, 'the response ended after complete', stream.ended);
  return payload;
}

/** A refused /graphql/stream request: status, headers, JSON body and how long it took. */
export async function refusalOf(
  server: Pick<TestServer, 'url'>,
  init: RequestInit & { path?: string },
): Promise<{ status: number; headers: Headers; body: ChangePayload; ms: number }> {
  const started = performance.now();
  const res = await within(OPEN_MS, 'a refusal', fetch(`${server.url}${init.path ?? '/graphql/stream'}`, init));
  const text = await within(OPEN_MS, 'a refusal body', res.text());
  let body: ChangePayload;
  try {
    body = JSON.parse(text) as ChangePayload;
  } catch {
    throw new Error(`${res.status} with a body that is not JSON: ${text.slice(0, 200)}`);
  }
  return { status: res.status, headers: res.headers, body, ms: performance.now() - started };
}

/** The value of one series of /metrics (0 when it is not there yet). */
export async function metric(server: Pick<TestServer, 'url'>, series: string): Promise<number> {
  const text = await (await fetch(`${server.url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}

/** What the real graphql-sse client (distinct connections, no retries) received: results, then how it ended. */
export interface ClientRun {
  results: ExecutionResult<{ changes: Record<string, unknown> }, unknown>[];
  /** Resolves 'complete' when the server completed the operation, or rejects with the client's error. */
  ended: Promise<'complete'>;
  dispose(): void;
}

/** Subscribes with graphql-sse's own client, as an app would, sending the bearer token as a header. */
export function subscribeWithClient(
  server: Pick<TestServer, 'url'>,
  token: string,
  query = SUBSCRIBE,
  variables: Record<string, unknown> = {},
): ClientRun {
  const client = createClient({
    url: `${server.url}/graphql/stream`,
    headers: { Authorization: `Bearer ${token}` },
    retryAttempts: 0,
  });
  const results: ClientRun['results'] = [];
  let dispose = () => {};
  const ended = new Promise<'complete'>((resolve, reject) => {
    dispose = client.subscribe<{ changes: Record<string, unknown> }>(
      { query, variables },
      { next: (result) => results.push(result), error: reject, complete: () => resolve('complete') },
    );
  });
  const close = () => {
    dispose();
    client.dispose();
  };
  opened.add(close);
  return {
    results,
    ended,
    dispose: () => {
      opened.delete(close);
      close();
    },
  };
}
