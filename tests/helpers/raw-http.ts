import { request, type IncomingHttpHeaders } from 'node:http';
import { connect } from 'node:net';

export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** Milliseconds from connecting to the server closing the connection. */
  ms: number;
}

/**
 * Writes `chunks` on a fresh TCP connection (pausing `pauseMs` between them), then reads until the server
 * closes it: the server's answer as bytes on the wire, for requests fetch would never send.
 */
export function rawRequest(url: string, chunks: (string | Buffer)[], { pauseMs = 0 } = {}): Promise<RawAnswer> {
  const { hostname, port } = new URL(url);
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    const received: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => received.push(chunk));
    // The server may close while we still write: what it answered is what counts.
    socket.on('error', () => {});
    socket.on('close', () => {
      const text = Buffer.concat(received).toString('utf8');
      const [head = '', ...rest] = text.split('\r\n\r\n');
      const [statusLine = '', ...lines] = head.split('\r\n');
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(statusLine)?.[1] ?? 0);
      if (!status) return reject(new Error(`no HTTP answer, got ${JSON.stringify(text.slice(0, 200))}`));
      const headers = Object.fromEntries(
        lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
      );
      resolve({ status, headers, body: rest.join('\r\n\r\n'), ms: Date.now() - started });
    });
    const send = async () => {
      for (const chunk of chunks) {
        if (socket.destroyed) return;
        socket.write(chunk);
        if (pauseMs) await new Promise((r) => setTimeout(r, pauseMs).unref());
      }
    };
    // The emitter drops a listener's promise: a failure while sending fails the request instead.
    socket.on('connect', () => {
      send().catch(reject);
    });
  });
}

export interface UnfinishedAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

/** POSTs `headers` and the start of a body that promised more (its Content-Length), and waits for the answer. */
export function postUnfinishedBody(
  url: string,
  headers: Record<string, string>,
  start: string,
  contentLength: number,
): Promise<UnfinishedAnswer> {
  const { hostname, port, pathname } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: hostname,
        port,
        path: pathname,
        method: 'POST',
        headers: { ...headers, 'Content-Length': String(contentLength) },
      },
      (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, text }));
      },
    );
    req.on('error', reject);
    req.write(start);
  });
}
