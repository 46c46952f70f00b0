import type { TestServer } from './harness.js';

/** One Server-Sent Event as a client parses it (comments counted apart). */
export interface SseEvent {
  id?: string;
  event?: string;
  data: string;
}

export const SUBSCRIBE = `subscription($event: String, $types: [ChangeType!]) {
  changes(event: $event, types: $types) {
    cursor type eventSlug event { slug name } registration { id } registrant { name email } } }`;

/** An open stream read as raw SSE: its events, comments, and the promise of its end. */
export interface RawStream {
  status: number;
  headers: Headers;
  events: SseEvent[];
  comments: number;
  /** Resolves when the response ends, whoever ended it. */
  ended: Promise<void>;
  /** Resolves once `n` events (of any kind) arrived; rejects after `ms`. */
  next(n: number, ms?: number): Promise<SseEvent[]>;
  /** The body when the answer was not a stream. */
  text?: string;
  close(): void;
}

/** Opens /graphql/stream with fetch and parses what comes, as EventSource would. */
export async function openStream(
  server: Pick<TestServer, 'url'>,
  token: string | undefined,
  body: Record<string, unknown> = { query: SUBSCRIBE },
  headers: Record<string, string> = {},
): Promise<RawStream> {
  const controller = new AbortController();
  const res = await fetch(`${server.url}/graphql/stream`, {
    method: 'POST',
    headers: {
      accept: 'text/event-stream',
      'content-type': 'application/json',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...headers,
    },
    body: JSON.stringify(body),
    signal: controller.signal,
  });
  const stream: RawStream = {
    status: res.status,
    headers: res.headers,
    events: [],
    comments: 0,
    ended: Promise.resolve(),
    next: () => Promise.reject(new Error('not a stream')),
    close: () => controller.abort(),
  };
  if (!(res.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    stream.text = await res.text();
    return stream;
  }
  let wake = () => {};
  stream.ended = (async () => {
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
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
          if (fields === 0) stream.comments++;
          else stream.events.push(event);
          wake();
        }
      }
    } catch {
      // aborted by the test, or reset by the server
    }
    wake();
  })();
  let done = false;
  void stream.ended.then(() => (done = true));
  stream.next = (n, ms = 5000) =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`only ${stream.events.length} of ${n} events in ${ms} ms`)), ms);
      const check = () => {
        if (stream.events.length >= n) {
          clearTimeout(timer);
          resolve(stream.events.slice(0, n));
        } else if (done) {
          clearTimeout(timer);
          reject(new Error(`stream ended after ${stream.events.length} of ${n} events`));
        } else wake = check;
      };
      check();
    });
  return stream;
}

/** The `changes` payload of a `next` event. */
export const payloadOf = (e: SseEvent) =>
  JSON.parse(e.data) as {
    data: { changes: Record<string, unknown> } | null;
    errors?: { message: string; extensions: { code: string } }[];
  };
