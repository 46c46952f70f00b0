import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { createDb, migrate, type Db } from '../../src/stores/database.js';
import { EpochStore } from '../../src/stores/epoch-store.js';
import { querySpanFields } from '../../src/stores/query-spans.js';
import { createStores, type Stores } from '../../src/stores/stores.js';
import { freshDatabase } from '../helpers/harness.js';

// SQL spans from the stores, against the test run's database (SQLite, or PostgreSQL with TEST_DATABASE_URL):
// under the span of the work that ran them, the statement's placeholders and never its values.
const SYSTEM = process.env.TEST_DATABASE_URL ? 'postgresql' : 'sqlite';
const exporter = new InMemorySpanExporter();
const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
let database: { url: string; drop(): Promise<void> };
let db: Db;
let stores: Stores;

beforeAll(async () => {
  // This test file's own globals: the jest environment is a context of its own.
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  trace.setGlobalTracerProvider(provider);
  database = await freshDatabase();
  db = createDb(database.url, { traced: true });
  await migrate(db);
  stores = createStores(db);
});
afterAll(async () => {
  await db?.destroy();
  await database?.drop();
  await provider.shutdown();
  trace.disable();
  context.disable();
});
beforeEach(() => exporter.reset());

const inSpan = <T>(fn: () => Promise<T>) =>
  trace.getTracer('test').startActiveSpan('request', async (span) => {
    try {
      return { parent: span.spanContext().spanId, result: await fn() };
    } finally {
      span.end();
    }
  });
const sqlSpans = () => exporter.getFinishedSpans().filter((s) => s.attributes['db.system.name'] !== undefined);

test('a statement run under a span is its child, with the query text and no bound value', async () => {
  const slug = 'bound-slug-9931';
  const { parent } = await inSpan(() => stores.events.findBySlug(slug));
  const spans = sqlSpans();
  expect(spans).toHaveLength(1);
  const [span] = spans;
  expect(span!.parentSpanContext?.spanId).toBe(parent);
  expect(span!.attributes).toMatchObject({
    'db.system.name': SYSTEM,
    'db.operation.name': 'SELECT',
    'db.collection.name': 'events',
  });
  expect(span!.name).toBe('SELECT events');
  expect(String(span!.attributes['db.query.text'])).toMatch(/\bslug\b/);
  expect(JSON.stringify(span!.attributes)).not.toContain(slug);
});

test('statements in a transaction are spans too; a failing one has an error status without its values', async () => {
  const name = 'secret-name-4410';
  await inSpan(async () => {
    await expect(
      db.transaction(async (trx) => {
        await trx('users').insert({ uid: 'u_span', name, activation_state: 'active', created_at: 1, updated_at: 1 });
        await trx.raw('select * from no_such_table where name = ?', [name]);
      }),
    ).rejects.toThrow();
  });
  const spans = sqlSpans();
  expect(spans.map((s) => s.attributes['db.operation.name'])).toEqual(['INSERT', 'SELECT']);
  expect(spans[1]!.status.code).toBe(2);
  expect(spans[1]!.attributes['error.type']).toBeDefined();
  expect(JSON.stringify(spans.map((s) => [s.attributes, s.status, s.events]))).not.toContain(name);
});

test('the epoch read, which bypasses knex, is a span too', async () => {
  await inSpan(() => new EpochStore(db).current());
  expect(sqlSpans().map((s) => s.name)).toEqual(['SELECT auth_epoch']);
});

test('no span without a traced parent: background polls start no trace', async () => {
  await stores.events.findBySlug('nobody-asked');
  await new EpochStore(db).current();
  expect(exporter.getFinishedSpans()).toEqual([]);
});

test('a database opened without tracing has no query listener at all', async () => {
  const untraced = createDb('sqlite::memory:');
  try {
    expect(untraced.listenerCount('query')).toBe(0);
    expect(db.listenerCount('query')).toBe(1);
  } finally {
    await untraced.destroy();
  }
});

test.each([
  ['select `a` from `events` where `slug` = ?', 'SELECT events', 'events'],
  ['insert into "users" ("name") values ($1) returning "id"', 'INSERT users', 'users'],
  ['update webhooks set state = ? where id = ?', 'UPDATE webhooks', 'webhooks'],
  ['with x as (select 1) select * from x', 'WITH x', 'x'],
  ['BEGIN', 'BEGIN', undefined],
])('%s: named %s', (sql, name, collection) => {
  const fields = querySpanFields('sqlite', sql);
  expect(fields.name).toBe(name);
  expect(fields.attributes['db.collection.name']).toBe(collection);
  expect(fields.attributes['db.query.text']).toBe(sql);
});
