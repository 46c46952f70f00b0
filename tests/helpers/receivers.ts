import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// Webhook receivers for tests: real servers on loopback ephemeral ports that note what reached them.

export interface Received {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
}

export interface Receiver {
  port: number;
  /** http(s)://HOST:PORT/hook on the address the receiver listens on. */
  url: string;
  /** Every request that reached the handler, its body read in full. */
  received: Received[];
  /** TCP connections accepted, requests or not. */
  connections: number;
  /** Sockets that have closed. */
  closedConnections: number;
  close(): Promise<void>;
}

export type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;

export interface ReceiverOptions {
  host?: string;
  port?: number;
  /** Serve https with this key and certificate. */
  tls?: { key: string; cert: string };
  /** Run the handler as soon as the headers arrive, before the body (a receiver that never reads it). */
  beforeBody?: boolean;
}

/** A receiver whose `handler` answers each request; closing it drops every open connection. */
export async function startReceiver(handler: Handler, options: ReceiverOptions = {}): Promise<Receiver> {
  const host = options.host ?? '127.0.0.1';
  const sockets = new Set<Socket>();
  const receiver = { received: [] as Received[], connections: 0, closedConnections: 0 };
  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    const record: Received = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: '' };
    receiver.received.push(record);
    if (options.beforeBody) return handler(req, res, '');
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      record.body = Buffer.concat(chunks).toString('utf8');
      handler(req, res, record.body);
    });
  };
  const server: Server = options.tls ? createTlsServer(options.tls, onRequest) : createServer(onRequest);
  server.on(options.tls ? 'secureConnection' : 'connection', (socket: Socket) => {
    receiver.connections += 1;
    sockets.add(socket);
    socket.on('close', () => {
      receiver.closedConnections += 1;
      sockets.delete(socket);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, resolve);
  });
  const { port } = server.address() as AddressInfo;
  const shownHost = host.includes(':') ? `[${host}]` : host;
  return Object.assign(receiver, {
    port,
    url: `${options.tls ? 'https' : 'http'}://${shownHost}:${port}/hook`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  });
}

/** A port nothing listens on: one a server held a moment ago. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A self-signed certificate for `name` (openssl, P-256, one day), its PEM also the CA a client trusts. */
export function selfSignedCertificate(name: string): { key: string; cert: string } {
  const dir = mkdtempSync(join(tmpdir(), 'roster-cert-'));
  try {
    const key = join(dir, 'key.pem');
    const cert = join(dir, 'cert.pem');
    execFileSync(
      'openssl',
      [
        ...['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '1'],
        ...['-subj', `/CN=${name}`, '-addext', `subjectAltName=DNS:${name}`, '-keyout', key, '-out', cert],
      ],
      { stdio: 'ignore' },
    );
    return { key: readFileSync(key, 'utf8'), cert: readFileSync(cert, 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
