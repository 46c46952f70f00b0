import { Agent, request, type IncomingHttpHeaders } from 'node:http';

export interface HeldAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * A POST the server cannot finish until the test lets it: the headers go first with `Expect: 100-continue`,
 * the body only on release. Node's server sends 100 Continue as it hands the request to the app, so once
 * `started` resolves the request is in flight in the server, whatever the machine's speed.
 */
export interface HeldRequest {
  /** The server has the request (its 100 Continue came back). */
  readonly started: Promise<void>;
  /** Sends the body: from now on the server can answer. */
  release(): void;
  /** The answer, once the body is sent and the server has answered. */
  readonly answer: Promise<HeldAnswer>;
  /** The server closed the connection (a kept-alive connection stays open otherwise). */
  readonly closed: Promise<void>;
  /** Whether the connection is closed already. */
  isClosed(): boolean;
}

/** Sends `body` to `url` as a held POST (see HeldRequest), on a connection of its own that asks to be kept alive. */
export function holdRequest(url: string, headers: Record<string, string>, body: string): HeldRequest {
  const { hostname, port, pathname } = new URL(url);
  // Keep-alive, as a balancer's connection is: whether it closes is then the server's decision.
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  let closed = false;
  let release = () => {};
  let markStarted = () => {};
  let markClosed = () => {};
  const started = new Promise<void>((resolve) => (markStarted = resolve));
  const closedPromise = new Promise<void>((resolve) => (markClosed = resolve));
  const answer = new Promise<HeldAnswer>((resolve, reject) => {
    const req = request(
      {
        host: hostname,
        port,
        path: pathname,
        method: 'POST',
        agent,
        headers: { ...headers, Expect: '100-continue', 'Content-Length': String(Buffer.byteLength(body)) },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text }));
      },
    );
    req.on('socket', (socket) =>
      socket.once('close', () => {
        closed = true;
        agent.destroy();
        markClosed();
      }),
    );
    req.on('continue', markStarted);
    req.on('error', (err) => reject(new Error(`the held request to ${pathname} got no answer: ${err.message}`)));
    release = () => req.end(body);
  });
  // A request refused before it started must fail the test where it is awaited, not as an unhandled rejection.
  answer.catch(() => {});
  return {
    started: Promise.race([started, answer.then(() => Promise.reject(new Error('answered before it was released')))]),
    release: () => release(),
    answer,
    closed: closedPromise,
    isClosed: () => closed,
  };
}
