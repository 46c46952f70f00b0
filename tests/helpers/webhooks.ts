import type { ServerResponse } from 'node:http';
import { Webhook } from 'standardwebhooks';
import { loadConfig } from '../../src/config.js';
import { CHANGE_CURSOR_PREFIX } from '../../src/lib/ids.js';
import { createServices, type Services } from '../../src/services/services.js';
import type { WebhookPayload } from '../../src/services/webhook-delivery.js';
import { createDb, migrate, type Db } from '../../src/stores/database.js';
import { createStores, type Stores } from '../../src/stores/stores.js';
import type { EventRow, UserRow } from '../../src/stores/types.js';
import type { AttemptRow, DeliveryRow } from '../../src/stores/webhook-store.js';
import { validateWebhookUrl } from '../../src/webhooks/webhook-url.js';
import { freshDatabase } from './harness.js';
import { spawnServer, stopServers, type ServerProcess } from './process.js';
import { startReceiver, type Received, type Receiver } from './receivers.js';
import { until } from './wait.js';

// Webhook tests' shared pieces: a receiver whose answers a test steers, the signature checked as a receiver
// checks it, and a webhook's deliveries read back.

/** How a hook receiver answers one request: a status, a redirect, or not at all until released. */
export type Answer = number | 'hold' | { status: number; headers: Record<string, string> };

export interface HookReceiver extends Receiver {
  /** Decides each request's answer from the request and how many came before it; the test may swap it. */
  answer: (req: Received, index: number) => Answer;
  /** Responses held open ('hold'), oldest first. */
  held: ServerResponse[];
  /** Answers every held response with `status`. */
  releaseHeld(status?: number): void;
  /** The `webhook-id` of every request received, in order. */
  ids(): string[];
  /** When each request had arrived in full (ms since the epoch), in order. */
  at: number[];
}

/** A receiver on a loopback port that answers as `answer` says (204 by default). */
export async function hookReceiver(answer: HookReceiver['answer'] = () => 204): Promise<HookReceiver> {
  let index = 0;
  const held: ServerResponse[] = [];
  const at: number[] = [];
  // Read at each request: a test that assigns `answer` changes how the next requests are answered.
  const steering = { answer };
  const receiver = await startReceiver((req, res, body) => {
    at.push(Date.now());
    const said = steering.answer(
      { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body },
      index++,
    );
    if (said === 'hold') return void held.push(res);
    if (typeof said === 'number') return void res.writeHead(said).end();
    res.writeHead(said.status, said.headers).end();
  });
  const hook = Object.assign(receiver, {
    answer,
    held,
    at,
    releaseHeld(status = 204) {
      for (const res of held.splice(0)) if (!res.destroyed) res.writeHead(status).end();
    },
    ids: () => receiver.received.map((r) => String(r.headers['webhook-id'])),
  });
  return Object.defineProperty(hook, 'answer', {
    get: () => steering.answer,
    set: (next: HookReceiver['answer']) => (steering.answer = next),
  });
}

/** The payload of a received delivery, its signature verified with `standardwebhooks` (throws when it fails). */
export function verified(secret: string, received: Received): WebhookPayload {
  return new Webhook(secret).verify(received.body, received.headers as Record<string, string>) as WebhookPayload;
}

/** The change log position a change cursor (a payload's `data.cursor`) names. */
export const changePosition = (cursor: string): number =>
  Number(Buffer.from(cursor, 'base64url').toString().slice(CHANGE_CURSOR_PREFIX.length));

/** The row id of an app, by its client id. */
export async function appIdOf(stores: Stores, clientId: string): Promise<number> {
  return (await stores.apps.findByClientId(clientId))!.id;
}

/** A webhook's deliveries (newest first) and attempts (newest first), as its owner is shown them. */
export function history(
  services: Services,
  webhookId: number,
): Promise<{ deliveries: DeliveryRow[]; attempts: AttemptRow[] }> {
  return services.webhooks.history(webhookId);
}

/** Waits until the webhook has `count` deliveries and none of them is pending; returns them, oldest first. */
export async function settled(
  services: Services,
  webhookId: number,
  count: number,
  ms = 10_000,
): Promise<DeliveryRow[]> {
  let rows: DeliveryRow[] = [];
  const done = async () => {
    rows = (await history(services, webhookId)).deliveries;
    return rows.length === count && rows.every((d) => d.state !== 'pending');
  };
  await until(done, `webhook ${webhookId}: ${count} deliveries settled`, ms).catch((err: Error) => {
    throw new Error(`${err.message} (they are: ${rows.map((d) => d.state).join(', ') || 'none'})`);
  });
  return rows.reverse();
}

/** A database a real server process is started on, its services built here too; closed and dropped by close(). */
export interface SeededDatabase {
  url: string;
  db: Db;
  stores: Stores;
  services: Services;
  /** The organizer of `event`, owner of the app `appId`. */
  organizer: UserRow;
  event: EventRow;
  appId: number;
  /** Registers a new user (named `name`, no email) for `event`. */
  register(name: string): Promise<void>;
  close(): Promise<void>;
}

/** A fresh, migrated database with an organizer, their event and their app: for servers run as processes. */
export async function seededDatabase(): Promise<SeededDatabase> {
  const database = await freshDatabase();
  const db = createDb(database.url);
  await migrate(db);
  const stores = createStores(db);
  const services = createServices(stores, loadConfig({ NODE_ENV: 'test', DATABASE_URL: database.url }, false), {
    validateWebhookUrl: (url) => validateWebhookUrl(url, { production: false }),
  });
  const organizer = await stores.users.create({ email: 'process.org@example.com', name: 'Process Organizer' });
  const event = await stores.events.create({
    slug: 'process-event',
    name: 'Process Event',
    organizerIds: [organizer.id],
  });
  const { app } = await stores.apps.create({
    ownerId: organizer.id,
    name: 'Hooked',
    redirectUris: ['https://h.example/cb'],
  });
  return {
    url: database.url,
    db,
    stores,
    services,
    organizer,
    event,
    appId: app.id,
    async register(name) {
      const user = await stores.users.create({ name });
      await stores.registrations.create(event.id, user.id);
    },
    async close() {
      await db.destroy();
      await database.drop();
    },
  };
}

/**
 * A seeded database and a receiver (answering with `answer`) for the test file, and `start()` for a server
 * process on that database; every process started is stopped after the file, then the receiver and database.
 */
export function useDeliveryServers(answer?: HookReceiver['answer']): {
  readonly d: SeededDatabase;
  readonly receiver: HookReceiver;
  start(): Promise<ServerProcess>;
} {
  let d: SeededDatabase | undefined;
  let receiver: HookReceiver | undefined;
  const servers: ServerProcess[] = [];
  beforeAll(async () => {
    d = await seededDatabase();
    receiver = await hookReceiver(answer);
  });
  afterAll(async () => {
    await stopServers(servers);
    await receiver?.close();
    await d?.close();
  });
  return {
    get d() {
      return d!;
    },
    get receiver() {
      return receiver!;
    },
    async start() {
      const server = await spawnServer({ NODE_ENV: 'test', DATABASE_URL: d!.url });
      servers.push(server);
      return server;
    },
  };
}
