import { Agent, request } from 'node:http';

/**
 * A stream request whose headers reach the server (and pass its bearer check) while its body is held back
 * (Expect: 100-continue): `release` sends the body, then `status` and `text` show what the stream says.
 */
export interface HeldStream {
  started: Promise<void>;
  release(): void;
  status: Promise<number>;
  /** Everything the response body carried so far. */
  text(): string;
  /** Resolves once the body contains `needle`; rejects after `ms`. */
  waitFor(needle: string, ms?: number): Promise<void>;
  ended: Promise<void>;
  close(): void;
}

export function holdStream(url: string, token: string, body: string, headers: Record<string, string> = {}): HeldStream {
  const { hostname, port } = new URL(url);
  const agent = new Agent({ keepAlive: false, maxSockets: 1 });
  let text = '';
  let markStarted = () => {};
  let markStatus = (_s: number) => {};
  let markEnded = () => {};
  let wake = () => {};
  const started = new Promise<void>((r) => (markStarted = r));
  const status = new Promise<number>((r) => (markStatus = r));
  const ended = new Promise<void>((r) => (markEnded = r));
  const req = request(
    {
      host: hostname,
      port,
      path: '/graphql/stream',
      method: 'POST',
      agent,
      headers: {
        Authorization: `Bearer ${token}`,
        Accept: 'text/event-stream',
        'Content-Type': 'application/json',
        'Content-Length': String(Buffer.byteLength(body)),
        Expect: '100-continue',
        ...headers,
      },
    },
    (res) => {
      markStatus(res.statusCode!);
      res.setEncoding('utf8');
      res.on('data', (c: string) => {
        text += c;
        wake();
      });
      res.on('end', markEnded);
      res.on('close', markEnded);
      res.on('error', () => {});
    },
  );
  req.on('continue', markStarted);
  req.on('error', () => markEnded());
  req.on('close', () => markEnded());
  return {
    started,
    release: () => req.end(body),
    status,
    text: () => text,
    waitFor: (needle, ms = 5000) =>
      new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no ${needle} in ${ms} ms; got ${JSON.stringify(text)}`)), ms);
        const check = () => {
          if (text.includes(needle)) {
            clearTimeout(timer);
            resolve();
          } else wake = check;
        };
        check();
      }),
    ended,
    close: () => {
      req.destroy();
      agent.destroy();
    },
  };
}
