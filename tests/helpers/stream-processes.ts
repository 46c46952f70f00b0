import { spawn } from 'node:child_process';
import { createServer as createHttpServer, request as httpRequest } from 'node:http';
import { decodeChangeCursor } from '../../src/graphql/pagination.js';
import { createDb, migrate, type Db } from '../../src/stores/database.js';
import { createStores, type Stores } from '../../src/stores/stores.js';
import type { EventRow, UserRow } from '../../src/stores/types.js';
import { distPath, useBuiltDist } from './build.js';
import { cli } from './cli.js';
import { freshDatabase } from './harness.js';
import { spawnServer, stopServers, type ServerProcess } from './process.js';
import { SUBSCRIBE, type SseEvent } from './streams.js';

/** An SSE event and when this process parsed it (Date.now()). */
export interface TimedEvent extends SseEvent {
  at: number;
}

/** How a stream's response ended: its body ended as HTTP ends one, the connection broke mid-body, or we closed it. */
export type StreamEnd = { how: 'clean' | 'broken' | 'closed'; at: number };

export interface TimedStream {
  status: number;
  headers: Headers;
  /** The body when the answer was not a stream. */
  text?: string;
  events: TimedEvent[];
  comments: string[];
  ended: Promise<StreamEnd>;
  /** The first `n` events, once they arrived; rejects after `ms`, or when the stream ends short of them. */
  waitFor(n: number, ms?: number): Promise<TimedEvent[]>;
  close(): void;
}

/** Opens /graphql/stream at `url` with fetch and keeps every event with its arrival time and how the stream ended. */
export async function openTimedStream(
  url: string,
  token: string,
  headers: Record<string, string> = {},
): Promise<TimedStream> {
  const controller = new AbortController();
  // An answer that never comes fails the test by name.
  const late = setTimeout(() => controller.abort(new Error(`no answer from ${url}/graphql/stream in 10 s`)), 10_000);
  const res = await fetch(`${url}/graphql/stream`, {
    method: 'POST',
    headers: {
      accept: 'text/event-stream',
      'content-type': 'application/json',
      authorization: `Bearer ${token}`,
      ...headers,
    },
    body: JSON.stringify({ query: SUBSCRIBE }),
    signal: controller.signal,
  }).finally(() => clearTimeout(late));
  const stream: TimedStream = {
    status: res.status,
    headers: res.headers,
    events: [],
    comments: [],
    ended: Promise.resolve({ how: 'clean', at: Date.now() }),
    waitFor: () => Promise.reject(new Error(`not a stream: ${res.status}`)),
    close: () => controller.abort(),
  };
  if (!(res.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    stream.text = await res.text();
    return stream;
  }
  const listeners = new Set<() => void>();
  const notify = () => listeners.forEach((listener) => listener());
  let end: StreamEnd | undefined;
  stream.ended = (async (): Promise<StreamEnd> => {
    const decoder = new TextDecoder();
    let buffer = '';
    let how: StreamEnd['how'] = 'clean';
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        const at = Date.now();
        buffer += decoder.decode(chunk, { stream: true });
        let cut: number;
        while ((cut = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          const event: TimedEvent = { data: '', at };
          let fields = 0;
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) {
              stream.comments.push(line.slice(1).trim());
              continue;
            }
            const colon = line.indexOf(':');
            const name = colon < 0 ? line : line.slice(0, colon);
            const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
            fields++;
            if (name === 'id') event.id = value;
            else if (name === 'event') event.event = value;
            else if (name === 'data') event.data += value;
          }
          if (fields > 0) stream.events.push(event);
        }
        notify();
      }
    } catch {
      how = controller.signal.aborted ? 'closed' : 'broken';
    }
    end = { how, at: Date.now() };
    notify();
    return end;
  })();
  stream.waitFor = (n, ms = 5000) =>
    new Promise((resolve, reject) => {
      const check = () => {
        if (stream.events.length >= n) finish(() => resolve(stream.events.slice(0, n)));
        else if (end)
          finish(() => reject(new Error(`stream ended (${end!.how}) after ${stream.events.length} of ${n} events`)));
      };
      const timer = setTimeout(
        () => finish(() => reject(new Error(`only ${stream.events.length} of ${n} events in ${ms} ms`))),
        ms,
      );
      const finish = (settle: () => void) => {
        clearTimeout(timer);
        listeners.delete(check);
        settle();
      };
      listeners.add(check);
      check();
    });
  return stream;
}

/** A `next` event's change. */
export const changeOf = (e: SseEvent) =>
  (JSON.parse(e.data) as { data: { changes: { cursor: string; type: string; registrant: { name: string } | null } } })
    .data.changes;

/** What a change is about ("REGISTRATION_CREATED Guest 1"), to match it to the write that made it. */
export const keyOf = (e: SseEvent) => {
  const change = changeOf(e) as ReturnType<typeof changeOf> & { eventSlug: string };
  return `${change.type} ${change.registrant?.name ?? change.eventSlug}`;
};

/** The events (past `from`) that came `limitMs` or more after the commit of the write `commits` names for them. */
export function lateEvents(streams: TimedStream[], commits: Record<string, number>, limitMs: number, from = 0) {
  return streams
    .flatMap((s, i) => s.events.slice(from).map((e) => ({ stream: i, key: keyOf(e), ms: e.at - commits[keyOf(e)]! })))
    .filter((d) => !(d.ms < limitMs));
}

/** Every event is a `next` whose SSE id is its change's cursor, at strictly increasing log positions. */
export function expectWellFormed(stream: TimedStream): void {
  for (const e of stream.events) {
    expect(e.event).toBe('next');
    expect(e.id).toBe(changeOf(e).cursor);
  }
  const positions = stream.events.map((e) => decodeChangeCursor(e.id!));
  expect(positions).toEqual([...new Set(positions)].sort((x, y) => x - y));
}

/** A balancer in miniature: each request, unchanged, to the instance `pick` names; a failure there breaks it. */
export async function startBalancer(pick: () => string) {
  const served: { to: string; path: string; lastEventId: string | undefined }[] = [];
  const server = createHttpServer((req, res) => {
    const target = new URL(pick());
    const lastEventId = req.headers['last-event-id'] as string | undefined;
    served.push({ to: target.origin, path: req.url ?? '', lastEventId });
    const upstream = httpRequest(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode!, answer.headers);
        answer.pipe(res);
        answer.once('aborted', () => res.destroy());
        answer.once('error', () => res.destroy());
      },
    );
    upstream.once('error', () => (res.headersSent ? res.destroy() : res.writeHead(502).end()));
    // The client went away: so does its request upstream, as a real balancer's would.
    res.once('close', () => upstream.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    /** Each request: the instance it went to, and its Last-Event-ID. */
    served,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Runs the built CLI in a process of its own: when its write committed, as seen by when it printed its answer. */
export async function cliWrite(databaseUrl: string, args: string[]): Promise<number> {
  const proc = spawn(process.execPath, [distPath('cli/index.js'), ...args, '--json'], {
    env: { PATH: process.env.PATH, NODE_ENV: 'test', DATABASE_URL: databaseUrl },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  let printedAt = 0;
  proc.stdout.on('data', () => (printedAt ||= Date.now()));
  proc.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  // A CLI that hangs fails its test by name rather than at the test's timeout.
  const timer = setTimeout(() => proc.kill('SIGKILL'), 20_000);
  const code = await new Promise<number | null>((resolve) => proc.once('close', (c) => resolve(c)));
  clearTimeout(timer);
  if (code !== 0) throw new Error(`roster ${args.join(' ')} failed (${code}): ${stderr}`);
  return printedAt;
}

/** Runs a write in this process: when it committed. */
export const committed = async (write: () => Promise<unknown>) => (await write(), Date.now());

/** PostgreSQL: the backends of this database that wait on a lock. */
export const waitingOnLocks = async (db: Db) =>
  (
    await db.raw<{ rows: { n: number }[] }>(
      "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'",
    )
  ).rows[0]!.n;

export interface StreamFixtures {
  organizer: UserRow;
  /** Users not registered anywhere yet, for writes to register. */
  guests: UserRow[];
  event: EventRow;
  /** The organizer's user token, made by `roster token create`. */
  userToken: string;
  /** The token of the organizer's app. */
  appToken: string;
}

export interface StreamCluster {
  url: string;
  db: Db;
  stores: Stores;
  fx: StreamFixtures;
  instances: ServerProcess[];
}

/** A database with an organizer, an event, an app and its tokens, and `count` server processes on it. */
export function useStreamCluster(count: number, env: NodeJS.ProcessEnv = {}): StreamCluster {
  useBuiltDist();
  let database: { url: string; drop(): Promise<void> };
  const cluster = { instances: [] as ServerProcess[] } as StreamCluster;
  let started: Promise<unknown> = Promise.resolve();
  const start = async () => {
    // As deployed, and so never loading the demo data.
    cluster.instances.push(await spawnServer({ NODE_ENV: 'production', DATABASE_URL: database.url, ...env }));
  };
  // Several processes start at once: a busy machine takes its time.
  beforeAll(async () => {
    database = await freshDatabase();
    cluster.url = database.url;
    cluster.db = createDb(database.url);
    await migrate(cluster.db);
    cluster.stores = createStores(cluster.db);
    cluster.fx = await seed(cluster.stores, database.url);
    const starts = Array.from({ length: count }, start);
    started = Promise.allSettled(starts);
    await Promise.all(starts);
  }, 120_000);
  afterAll(async () => {
    // Starts that outlived a timed-out beforeAll would leave their servers running.
    await started;
    await stopServers(cluster.instances);
    await cluster.db?.destroy();
    await database?.drop();
  }, 60_000);
  return cluster;
}

async function seed(stores: Stores, databaseUrl: string): Promise<StreamFixtures> {
  const organizer = await stores.users.create({ email: 'organizer@live.example', name: 'Live Organizer' });
  const guests: UserRow[] = [];
  for (let i = 0; i < 12; i++)
    guests.push(await stores.users.create({ email: `g${i}@live.example`, name: `Guest ${i}` }));
  const event = await stores.events.create({ slug: 'live-event', name: 'Live Event', organizerIds: [organizer.id] });
  const app = await stores.apps.create({
    ownerId: organizer.id,
    name: 'Live App',
    redirectUris: ['https://l.example/cb'],
  });
  const client = app.app.clientId;
  const args = ['token', 'create', '--user', organizer.email!, '--client', client, '--scope', 'openid email profile'];
  const minted = await cli(databaseUrl, [...args, '--json']);
  if (minted.code !== 0) throw new Error(`roster token create failed: ${minted.stderr}`);
  return { organizer, guests, event, userToken: String(minted.json.access_token), appToken: app.appToken };
}
