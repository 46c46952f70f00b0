import { STATUS_CODES, createServer, type RequestListener, type Server, type ServerOptions } from 'node:http';
import type { Duplex } from 'node:stream';
import { jsonErrorBody } from './json-error.js';

/** Headers (and the request line, which Node counts with them) must fit in this many bytes. */
export const MAX_HEADER_SIZE = 16 * 1024;
/** Slow senders: all headers within this many ms... */
export const HEADERS_TIMEOUT_MS = 10_000;
/** ...and the whole request within this many. */
export const REQUEST_TIMEOUT_MS = 30_000;

interface Refusal {
  status: number;
  code: string;
  message: string;
}

/** What Node's parser refuses, as the status Node itself would send, with our code and one-line reason. */
function refusalFor(err: NodeJS.ErrnoException & { reason?: string }): Refusal {
  switch (err.code) {
    case 'HPE_HEADER_OVERFLOW':
      return {
        status: 431,
        code: 'HEADERS_TOO_LARGE',
        message: `The request line and headers exceed ${MAX_HEADER_SIZE / 1024} kB.`,
      };
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return { status: 413, code: 'PAYLOAD_TOO_LARGE', message: 'The chunk extensions of the body are too large.' };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { status: 408, code: 'REQUEST_TOO_SLOW', message: 'The request was not received in time.' };
    default: {
      // llhttp's reason is a fixed phrase such as "Invalid method encountered", never client text.
      const reason = typeof err.reason === 'string' ? `: ${err.reason.replace(/[^\x20-\x7e]/g, '')}` : '';
      return { status: 400, code: 'BAD_REQUEST', message: `The request is not valid HTTP${reason}.` };
    }
  }
}

const answered = new WeakSet<Duplex>();

/**
 * Answers a request Node's parser refused (it never reaches the app) with the same JSON error shape as
 * every other refusal, then closes the connection; a socket that cannot take an answer is just destroyed.
 */
function answerClientError(err: NodeJS.ErrnoException, socket: Duplex): void {
  // The parser repeats its error for every later chunk: the first answer stands until the timer below.
  if (answered.has(socket)) return;
  // Node's own check: never write into a response already under way on this connection.
  const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (err.code === 'ECONNRESET' || err.code === 'EPIPE' || !socket.writable || inFlight?.headersSent) {
    socket.destroy();
    return;
  }
  answered.add(socket);
  const { status, code, message } = refusalFor(err);
  const body = JSON.stringify(jsonErrorBody(code, message));
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
      'Content-Type: application/json; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      'Cache-Control: no-store\r\n' +
      'Connection: close\r\n\r\n' +
      body,
  );
  // end() flushes the answer first; a peer that never reads it must not keep the socket.
  setTimeout(() => socket.destroy(), 1000).unref();
}

/** The node:http server of the service (npm start and the tests alike): limits and parser refusals. */
export function createHttpServer(listener?: RequestListener, options: ServerOptions = {}): Server {
  const server = createServer(
    {
      maxHeaderSize: MAX_HEADER_SIZE,
      headersTimeout: HEADERS_TIMEOUT_MS,
      requestTimeout: REQUEST_TIMEOUT_MS,
      // Node checks those two timeouts only this often (30 s by default): a slow sender gets its 408 on time.
      connectionsCheckingInterval: 1000,
      ...options,
    },
    listener,
  );
  server.on('clientError', answerClientError);
  return server;
}

/** A listen failure as one line for the operator: which address, and why. */
export class ListenError extends Error {}

const LISTEN_REASONS: Record<string, string> = {
  EADDRINUSE: 'port in use',
  EACCES: 'permission denied (ports below 1024 need privileges)',
  EADDRNOTAVAIL: 'address not available on this machine',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host not found',
};

/** Listens, or rejects with a ListenError naming HOST:PORT (never Node's unhandled 'error' event). */
export function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const failed = (err: NodeJS.ErrnoException) => {
      const address = `${host.includes(':') ? `[${host}]` : host}:${port}`;
      const reason = LISTEN_REASONS[err.code ?? ''] ?? err.message.split('\n')[0]!;
      reject(new ListenError(`cannot listen on ${address}: ${reason}`));
    };
    server.once('error', failed);
    server.listen(port, host, () => {
      server.off('error', failed);
      resolve();
    });
  });
}
