import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/** A Roster webhook's body: the change, as the app's own token may see it (never an email address). */
export interface Delivery {
  type: string;
  timestamp: string;
  data: {
    cursor: string;
    event: { slug: string; name: string } | null;
    registration: { id: string } | null;
    registrant: { id: string; name: string; activationState: string } | null;
  };
}

export interface ReceiverOptions {
  /** The webhook's signing secret, `whsec_…`, shown once when the webhook was created. */
  secret: string;
  /** 0: any free port (see `url`). */
  port: number;
  host?: string;
  /** Called once for each delivery verified, whatever number of times it arrives. */
  onDelivery: (delivery: Delivery, id: string) => void;
}

export interface Receiver {
  url: string;
  close(): Promise<void>;
}

/** Bodies larger than this are refused (Roster's are a few hundred bytes). */
const MAX_BODY_BYTES = 64 * 1024;
/** How many delivery ids are remembered for deduplication (the oldest are forgotten first). */
const REMEMBERED_IDS = 10_000;

class TooLarge extends Error {}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new TooLarge();
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** The Standard Webhooks headers as the library reads them (node:http has lower-cased their names). */
function signatureHeaders(req: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature']) {
    const value = req.headers[name];
    if (typeof value === 'string') headers[name] = value;
  }
  return headers;
}

const isDelivery = (body: unknown): body is Delivery =>
  typeof body === 'object' &&
  body !== null &&
  typeof (body as Delivery).type === 'string' &&
  typeof (body as Delivery).data === 'object' &&
  (body as Delivery).data !== null;

/**
 * Listens for Roster's webhook deliveries: each one's signature is checked with the `standardwebhooks`
 * library (the HMAC of id, timestamp and body, and a timestamp within 5 minutes) before anything else;
 * a verified delivery is answered 204 and handed to `onDelivery` once, however often it is retried; a
 * bad signature is answered 400.
 */
export async function startReceiver({
  secret,
  port,
  host = '127.0.0.1',
  onDelivery,
}: ReceiverOptions): Promise<Receiver> {
  const webhook = new Webhook(secret);
  // Insertion-ordered: the first entry is the oldest id.
  const seen = new Set<string>();

  const server = createServer((req, res) => {
    if (req.method !== 'POST') {
      res.writeHead(405, { Allow: 'POST' }).end();
      return;
    }
    readBody(req).then(
      (body) => {
        const headers = signatureHeaders(req);
        let delivery: unknown;
        try {
          // Throws for a missing header, a signature that does not match, or a timestamp too old or too new.
          delivery = webhook.verify(body, headers);
        } catch {
          res.writeHead(400, { 'Content-Type': 'text/plain' }).end('bad signature\n');
          return;
        }
        if (!isDelivery(delivery)) {
          res.writeHead(400, { 'Content-Type': 'text/plain' }).end('not a Roster webhook\n');
          return;
        }
        const id = headers['webhook-id']!;
        // A retry of a delivery already handled (its 2xx was lost on the way back): acknowledged again, not redone.
        if (!seen.has(id)) {
          seen.add(id);
          if (seen.size > REMEMBERED_IDS) seen.delete(seen.values().next().value!);
          onDelivery(delivery, id);
        }
        res.writeHead(204).end();
      },
      (err: unknown) => {
        res.writeHead(err instanceof TooLarge ? 413 : 400, { Connection: 'close' }).end();
      },
    );
  });
  await new Promise<void>((resolve) => server.listen(port, host, resolve));
  const address = server.address() as AddressInfo;
  return {
    url: `http://${host}:${address.port}/`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}

/** One line for a delivery: its id, the change type, the event and the registrant when there is one. */
export function describe(delivery: Delivery, id: string): string {
  const { event, registrant } = delivery.data;
  const who = registrant ? `  ${registrant.name} (${registrant.activationState})` : '';
  return `${id}  ${delivery.type}  ${event?.slug ?? '(event not visible)'}${who}`;
}
