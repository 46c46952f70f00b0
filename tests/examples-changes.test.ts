import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { main as syncMain } from '../examples/sync/main.js';
import type { Registration } from '../examples/sync/local-copy.js';
import { main as receiverMain } from '../examples/webhook-receiver/main.js';
import type { Receiver } from '../examples/webhook-receiver/receiver.js';
import { sendTest } from '../examples/webhook-receiver/send-test.js';
import { newWebhookSecret, webhookHeaders } from '../src/lib/webhook-signature.js';
import { cli } from './helpers/cli.js';
import { useSeededServer } from './helpers/fixtures.js';
import { gql } from './helpers/graphql.js';
import { freePort } from './helpers/process.js';
import { until, within } from './helpers/wait.js';

// The change examples of examples/README.md against the real server: the sync client keeps a copy of an
// event's registrations through writes made by the operator CLI, and the webhook receiver verifies requests
// signed by Roster's own signing code.
const ROOT = fileURLToPath(new URL('../', import.meta.url));
const run = promisify(execFile);
const t = useSeededServer();
const roster = (...args: string[]) => cli(t.server.config.databaseUrl, [...args, '--json']);

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'roster-sync-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The copy file as the sync client wrote it. */
interface CopyFile {
  roster: string;
  event: string;
  cursor: string;
  registrations: Registration[];
}
const readCopy = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as CopyFile;

/** The event's registrations as Roster answers now, in the copy's shape and order. */
async function registrationsNow(slug: string): Promise<Registration[]> {
  const query = `query($slug: String!) { event(slug: $slug) { registrations(first: 1000) {
    nodes { id createdAt registrant { id name email activationState } } } } }`;
  const res = await gql(t.server, t.fx.tokens.organizerUser, query, { slug });
  const event = res.body.data!.event as { registrations: { nodes: Registration[] } } | null;
  return event?.registrations.nodes ?? [];
}

/** The feed's head now. */
async function head(): Promise<string> {
  const res = await gql(t.server, t.fx.tokens.organizerUser, '{ changes(first: 0) { pageInfo { endCursor } } }');
  return (res.body.data!.changes as { pageInfo: { endCursor: string } }).pageInfo.endCursor;
}

/** One `--once` run of the sync client: the lines it printed and the GraphQL operations it sent, in order. */
async function syncOnce(slug: string, file: string, beforeAnswer?: (operation: string) => Promise<void>) {
  const lines: string[] = [];
  const operations: string[] = [];
  const realFetch = globalThis.fetch;
  // The client's own requests, seen on their way: which operation, and a write slipped in after one of them.
  globalThis.fetch = async (input, init) => {
    // The example sends its body as a JSON string.
    const { query } = JSON.parse(init?.body as string) as { query: string };
    const operation = /query (\w+)/.exec(query)?.[1] ?? '?';
    operations.push(operation);
    const res = await realFetch(input, init);
    await beforeAnswer?.(operation);
    return res;
  };
  try {
    const env = { ROSTER_URL: t.server.url, ROSTER_TOKEN: t.fx.tokens.organizerUser, ROSTER_SYNC_FILE: file };
    await syncMain(env, [slug, '--once'], (line) => lines.push(line));
  } finally {
    globalThis.fetch = realFetch;
  }
  return { lines, operations };
}

describe('examples/sync: a local copy of an event’s registrations, kept current from the change feed', () => {
  const file = () => join(dir, 'public-meetup.json');

  test('the first run reads the event whole, after taking the head: a registration made meanwhile is not missed', async () => {
    let slipped = false;
    const { lines, operations } = await syncOnce('public-meetup', file(), async (operation) => {
      // Right after the registrations were read: a head taken only now would be past this write.
      if (operation !== 'RegistrationsPage' || slipped) return;
      slipped = true;
      await roster('user', 'create', '--email', 'mia@example.com', '--name', 'Mia Meanwhile');
      expect(
        (await roster('registration', 'create', '--event', 'public-meetup', '--user', 'mia@example.com')).code,
      ).toBe(0);
    });
    expect(operations).toEqual(['ChangesHead', 'RegistrationsPage', 'EventChanges']);
    const copy = readCopy(file());
    expect(copy.registrations.map((r) => r.registrant.name)).toEqual([
      ...t.fx.registrants.map((r) => r.name),
      'Mia Meanwhile',
    ]);
    expect(copy.registrations).toEqual(await registrationsNow('public-meetup'));
    expect(copy).toMatchObject({ roster: t.server.url, event: 'public-meetup', cursor: await head() });
    expect(lines).toEqual([
      'Read public-meetup whole (no local copy yet): 5 registrations',
      '+ Mia Meanwhile',
      `public-meetup: 6 registrations in ${file()}, up to date to ${copy.cursor}`,
    ]);
  });

  test('a rerun with nothing new resumes from the stored cursor: one page of changes, nothing read again', async () => {
    const before = readCopy(file());
    const { lines, operations } = await syncOnce('public-meetup', file());
    expect(operations).toEqual(['EventChanges']);
    expect(readCopy(file())).toEqual(before);
    expect(lines).toEqual([`public-meetup: 6 registrations in ${file()}, up to date to ${before.cursor}`]);
  });

  test('a rerun applies registrations added and removed and registrants renamed, exactly', async () => {
    const [ann, pat, dee, nora] = t.fx.registrants;
    await roster('user', 'create', '--email', 'nia@example.com', '--name', 'Nia New');
    await roster('registration', 'create', '--event', 'public-meetup', '--user', 'nia@example.com');
    // Ann stays registered for the private retreat; Pat was registered here only: both deletes name them.
    expect((await roster('registration', 'delete', '--event', 'public-meetup', '--user', ann!.email!)).code).toBe(0);
    expect((await roster('registration', 'delete', '--event', 'public-meetup', '--user', pat!.email!)).code).toBe(0);
    expect((await roster('user', 'update', '--user', dee!.email!, '--name', 'Dee Renamed')).code).toBe(0);
    expect((await roster('user', 'set-state', '--user', 'mia@example.com', '--state', 'pending')).code).toBe(0);
    // Nora's user goes, and her registration with it: that delete's registrant is null, so the client
    // reads the registrations again.
    expect((await roster('user', 'delete', '--user', nora!.uid)).code).toBe(0);

    const { lines, operations } = await syncOnce('public-meetup', file());
    expect(lines).toEqual([
      '+ Nia New',
      '- Ann Active',
      '- Pat Pending',
      '~ Dee Renamed',
      '~ Mia Meanwhile',
      '- a registrant no longer shown: reading the registrations again',
      expect.stringMatching(/^public-meetup: 4 registrations in /),
    ]);
    expect(operations).toEqual(['EventChanges', 'RegistrationsPage']);
    const copy = readCopy(file());
    expect(copy.registrations).toEqual(await registrationsNow('public-meetup'));
    expect(copy.registrations.map((r) => `${r.registrant.name} ${r.registrant.activationState}`)).toEqual([
      'Dee Renamed deactivated',
      'Otto Other active',
      'Mia Meanwhile pending',
      'Nia New active',
    ]);
    expect(copy.cursor).toBe(await head());
  });

  test('a delete whose registrant is still shown is applied without reading anything again', async () => {
    const dee = t.fx.registrants[2]!.email!;
    await roster('registration', 'delete', '--event', 'public-meetup', '--user', dee);
    await roster('registration', 'create', '--event', 'public-meetup', '--user', dee);
    const before = readCopy(file()).registrations[0]!;
    const { lines, operations } = await syncOnce('public-meetup', file());
    expect(operations).toEqual(['EventChanges']);
    expect(lines.slice(0, -1)).toEqual(['- Dee Renamed', '+ Dee Renamed']);
    const copy = readCopy(file());
    expect(copy.registrations).toEqual(await registrationsNow('public-meetup'));
    // Registered again: a new registration, now the newest.
    expect(copy.registrations.map((r) => r.registrant.name)).toEqual([
      'Otto Other',
      'Mia Meanwhile',
      'Nia New',
      'Dee Renamed',
    ]);
    expect(copy.registrations.at(-1)!.id).not.toBe(before.id);
  });

  test('a cursor older than the changes kept (CHANGES_EXPIRED): it reads the event whole again and carries on', async () => {
    const stale = readCopy(file());
    await roster('registration', 'create', '--event', 'public-meetup', '--user', 'pat@example.com');
    // Every change so far is past the retention now: the stored cursor is before the oldest kept.
    expect(await t.server.stores.changes.prune(Date.now() + 60_000)).toBeGreaterThan(0);
    const { lines, operations } = await syncOnce('public-meetup', file());
    expect(operations).toEqual(['EventChanges', 'ChangesHead', 'RegistrationsPage', 'EventChanges']);
    expect(lines).toEqual([
      'Read public-meetup whole (the stored cursor has expired: CHANGES_EXPIRED): 5 registrations',
      expect.stringMatching(/^public-meetup: 5 registrations in /),
    ]);
    const copy = readCopy(file());
    expect(copy.registrations).toEqual(await registrationsNow('public-meetup'));
    expect(copy.registrations.at(-1)!.registrant.name).toBe('Pat Pending');
    expect(copy.cursor).not.toBe(stale.cursor);
    expect(copy.cursor).toBe(await head());
  });

  test('an event deleted: the copy is emptied; a file of another event is not resumed but read whole', async () => {
    const other = join(dir, 'pop-up.json');
    await roster('event', 'create', '--slug', 'pop-up', '--name', 'Pop-up', '--organizer', 'org@example.com');
    await roster('registration', 'create', '--event', 'pop-up', '--user', 'ann@example.com');
    const first = await syncOnce('pop-up', other);
    expect(first.lines[0]).toBe('Read pop-up whole (no local copy yet): 1 registration');
    expect(readCopy(other).registrations.map((r) => r.registrant.name)).toEqual(['Ann Active']);

    expect((await roster('event', 'delete', '--event', 'pop-up')).code).toBe(0);
    const second = await syncOnce('pop-up', other);
    expect(second.lines).toEqual(['x pop-up was deleted', expect.stringMatching(/^pop-up: 0 registrations in /)]);
    expect(readCopy(other)).toMatchObject({ event: 'pop-up', registrations: [], cursor: await head() });

    // The same file asked for another event: read whole, never resumed from the pop-up's cursor.
    const third = await syncOnce('public-meetup', other);
    expect(third.lines[0]).toBe('Read public-meetup whole (the local copy is of another event): 5 registrations');
    expect(readCopy(other).registrations).toEqual(await registrationsNow('public-meetup'));
  });

  test('a token that may not read the registrations: Roster’s FORBIDDEN, and no file written', async () => {
    const lines: string[] = [];
    const denied = join(dir, 'denied.json');
    const env = { ROSTER_URL: t.server.url, ROSTER_TOKEN: t.fx.tokens.otherUser, ROSTER_SYNC_FILE: denied };
    const done = syncMain(env, ['public-meetup', '--once'], (line) => lines.push(line));
    await expect(done).rejects.toMatchObject({ errors: [{ extensions: { code: 'FORBIDDEN' } }] });
    expect(() => readFileSync(denied)).toThrow(/ENOENT/);
    expect(lines).toEqual([]);
  });
});

describe('examples/webhook-receiver: Standard Webhooks signatures checked, each delivery handled once', () => {
  const secret = newWebhookSecret();
  const printed: string[] = [];
  let receiver: Receiver;
  beforeAll(async () => {
    receiver = await receiverMain({ ROSTER_WEBHOOK_SECRET: secret, ROSTER_WEBHOOK_PORT: '0' }, (line) =>
      printed.push(line),
    );
  });
  afterAll(() => receiver?.close());
  beforeEach(() => printed.splice(0));

  /**
   * A delivery body shaped as Roster's are: a registration of public-meetup as the organizer's app token sees
   * it now (never an email address), at the feed's head.
   */
  async function deliveryBody(type = 'registration.created'): Promise<string> {
    const res = await gql(
      t.server,
      t.fx.tokens.organizerApp,
      `{ changes(first: 0) { pageInfo { endCursor } }
         event(slug: "public-meetup") { slug name registrations(first: 1) { nodes { id registrant { id name activationState } } } } }`,
    );
    const { changes, event } = res.body.data as {
      changes: { pageInfo: { endCursor: string } };
      event: { slug: string; name: string; registrations: { nodes: { id: string; registrant: object }[] } };
    };
    const [registration] = event.registrations.nodes;
    const data = {
      cursor: changes.pageInfo.endCursor,
      event: { slug: event.slug, name: event.name },
      registration: { id: registration!.id },
      registrant: registration!.registrant,
    };
    return JSON.stringify({ type, timestamp: new Date().toISOString(), data });
  }

  const post = (body: string, headers: Record<string, string>, method = 'POST') =>
    fetch(receiver.url, { method, headers: { 'Content-Type': 'application/json', ...headers }, body });

  test('main() listens where it says', () => {
    expect(receiver.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
  });

  test('a delivery signed with the webhook’s secret: 204, and one line printed', async () => {
    const body = await deliveryBody();
    const data = JSON.parse(body).data;
    const res = await post(body, { ...webhookHeaders(secret, 'msg_first', new Date(), body) });
    expect(res.status).toBe(204);
    expect(printed).toEqual([
      `msg_first  registration.created  ${data.event.slug}  ${data.registrant.name} (${data.registrant.activationState})`,
    ]);
  });

  /** What a bad request changes of a good one: the body sent, the secret it is signed with, its time. */
  type Spoil = (signed: string) => { body?: string; secret?: string; at?: Date };
  test.each<[string, Spoil]>([
    ['a tampered body', (signed) => ({ body: signed.replace('registration.created', 'event.deleted') })],
    ['another secret', () => ({ secret: newWebhookSecret() })],
    ['a timestamp 10 minutes old', () => ({ at: new Date(Date.now() - 10 * 60_000) })],
    ['a timestamp 10 minutes ahead', () => ({ at: new Date(Date.now() + 10 * 60_000) })],
  ])('%s: 400, and nothing printed', async (_name, spoil) => {
    const signed = await deliveryBody();
    const { body = signed, secret: signer = secret, at = new Date() } = spoil(signed);
    const res = await post(body, { ...webhookHeaders(signer, 'msg_bad', at, signed) });
    expect(res.status).toBe(400);
    expect(printed).toEqual([]);
  });

  test('no signature headers, a GET, a body too large: refused, nothing printed', async () => {
    const body = await deliveryBody();
    expect((await post(body, {})).status).toBe(400);
    const { 'webhook-signature': _dropped, ...unsigned } = webhookHeaders(secret, 'msg_unsigned', new Date(), body);
    expect((await post(body, { ...unsigned })).status).toBe(400);
    expect((await fetch(receiver.url)).status).toBe(405);
    // Roster's bodies are a few hundred bytes: one over 64 KB is not read to the end.
    const huge = JSON.stringify({ type: 'registration.created', data: { padding: 'x'.repeat(70_000) } });
    expect((await post(huge, { ...webhookHeaders(secret, 'msg_huge', new Date(), huge) })).status).toBe(413);
    expect(printed).toEqual([]);
  });

  test('the same webhook-id again (a retry, signed anew): 204 both times, printed once', async () => {
    const body = await deliveryBody('registration.deleted');
    const first = await post(body, { ...webhookHeaders(secret, 'msg_retried', new Date(Date.now() - 5_000), body) });
    const retry = await post(body, { ...webhookHeaders(secret, 'msg_retried', new Date(), body) });
    expect([first.status, retry.status]).toEqual([204, 204]);
    expect(printed).toHaveLength(1);
    expect(printed[0]).toMatch(/^msg_retried {2}registration\.deleted {2}/);
    // A forged request reusing the id is still refused: the id is remembered only once verified.
    const forged = await post(body, { ...webhookHeaders(newWebhookSecret(), 'msg_other', new Date(), body) });
    expect(forged.status).toBe(400);
    const other = await post(body, { ...webhookHeaders(secret, 'msg_other', new Date(), body) });
    expect(other.status).toBe(204);
    expect(printed).toHaveLength(2);
  });

  test('send-test signs a sample delivery the receiver accepts', async () => {
    expect(await sendTest(receiver.url, secret, 'msg_sample')).toBe(204);
    expect(printed).toEqual(['msg_sample  registration.created  roster-launch  Ada Lovelace (active)']);
    expect(await sendTest(receiver.url, newWebhookSecret())).toBe(400);
  });
});

describe('the README’s commands, built', () => {
  beforeAll(async () => {
    await run(process.execPath, [`${ROOT}node_modules/typescript/bin/tsc`, '-p', 'examples'], { cwd: ROOT });
  }, 120_000);

  test('node dist/examples/sync/main.js EVENT --once writes the copy and says so', async () => {
    const file = join(dir, 'built.json');
    const env = {
      ...process.env,
      ROSTER_URL: t.server.url,
      ROSTER_TOKEN: t.fx.tokens.organizerUser,
      ROSTER_SYNC_FILE: file,
    };
    const { stdout } = await run(process.execPath, ['dist/examples/sync/main.js', 'private-retreat', '--once'], {
      cwd: ROOT,
      env,
    });
    const copy = readCopy(file);
    expect(stdout.trimEnd().split('\n')).toEqual([
      'Read private-retreat whole (no local copy yet): 1 registration',
      `private-retreat: 1 registration in ${file}, up to date to ${copy.cursor}`,
    ]);
    expect(copy.registrations).toEqual(await registrationsNow('private-retreat'));
  });

  test('node dist/examples/live-checkin/main.js EVENT prints registrations as they come; Ctrl-C ends it', async () => {
    const env = {
      ...process.env,
      ROSTER_URL: t.server.url,
      ROSTER_TOKEN: t.fx.tokens.organizerUser,
      ROSTER_CHECKIN_FILE: join(dir, 'checkin.json'),
    };
    const proc = spawn(process.execPath, ['dist/examples/live-checkin/main.js', 'private-retreat'], { cwd: ROOT, env });
    let out = '';
    proc.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => proc.once('exit', resolve));
    try {
      await until(() => out.includes('\n'), 'the first line');
      expect(
        (await roster('registration', 'create', '--event', 'private-retreat', '--user', 'other@example.com')).code,
      ).toBe(0);
      await until(() => out.includes('+ Otto Other\n'), 'the registration printed');
      proc.kill('SIGINT');
      expect(await within(5_000, 'the exit after Ctrl-C', exited)).toBe(0);
      expect(out).toBe('Check-in list of Private Retreat: registrations and removals from now on\n+ Otto Other\n');
    } finally {
      proc.kill();
    }
  });

  test('the built receiver and send-test: 204, and the delivery printed', async () => {
    const secret = newWebhookSecret();
    const port = await freePort();
    const env = { ...process.env, ROSTER_WEBHOOK_SECRET: secret, ROSTER_WEBHOOK_PORT: String(port) };
    const proc = spawn(process.execPath, ['dist/examples/webhook-receiver/main.js'], { cwd: ROOT, env });
    let out = '';
    proc.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    try {
      await new Promise<void>((resolve, reject) => {
        proc.stdout.on('data', () => out.includes('\n') && resolve());
        proc.once('exit', (code) => reject(new Error(`the receiver exited with ${code}`)));
      });
      expect(out).toBe(`Listening for Roster's webhooks on http://127.0.0.1:${port}/\n`);
      const sent = await run(
        process.execPath,
        ['dist/examples/webhook-receiver/send-test.js', `http://127.0.0.1:${port}/`],
        {
          cwd: ROOT,
          env,
        },
      );
      expect(sent.stdout).toBe('The receiver answered 204\n');
      await until(() => out.split('\n').length > 2, 'the delivery printed');
      expect(out.split('\n')[1]).toMatch(
        /^msg_\S+ {2}registration\.created {2}roster-launch {2}Ada Lovelace \(active\)$/,
      );
    } finally {
      proc.kill();
    }
  });
});
