import { Webhook } from 'standardwebhooks';
import { cli } from '../helpers/cli.js';
import { useSeededServer } from '../helpers/fixtures.js';
import { startReceiver, type Receiver } from '../helpers/receivers.js';
import { until } from '../helpers/wait.js';

// `roster webhook …` against the database a real server delivers from.
const t = useSeededServer();
let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver((_req, res) => res.writeHead(204).end());
});
afterAll(() => receiver.close());

const roster = (args: string[], env: NodeJS.ProcessEnv = {}) => cli(t.server.config.databaseUrl, args, '', env);
const bodyOf = (i: number) => JSON.parse(receiver.received[i]!.body) as { type: string; data: Record<string, unknown> };

describe('roster webhook', () => {
  let id: number;
  let secret: string;

  test('create prints the id and the secret once; list and the database never show the secret', async () => {
    const made = await roster([
      ...['webhook', 'create', '--client', t.fx.orgApp.clientId, '--url', receiver.url],
      ...['--type', 'registration.created', '--type', 'registration.deleted', '--event', 'public-meetup', '--json'],
    ]);
    expect(made.code).toBe(0);
    id = made.json.id as number;
    secret = made.json.secret as string;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(made.json).toMatchObject({
      types: ['registration.created', 'registration.deleted'],
      event: 'public-meetup',
    });

    const list = await roster(['webhook', 'list', '--client', t.fx.orgApp.clientId, '--json']);
    expect(list.json.webhooks).toEqual([
      expect.objectContaining({ id, client_id: t.fx.orgApp.clientId, enabled: true }),
    ]);
    const human = await roster(['webhook', 'list']);
    expect(human.stdout).toContain(receiver.url);
    for (const out of [list.stdout, human.stdout]) expect(out).not.toContain(secret.slice(6));
    const [row] = await t.server.db('webhooks').where({ id });
    expect(JSON.stringify(row)).not.toContain(secret.slice(6));
    expect(String(row.secret_sealed)).toMatch(/^v1\./);
  });

  test('a registration is delivered; deliveries shows the attempt; redeliver sends the same webhook-id', async () => {
    const user = await t.server.stores.users.create({ email: 'cli-hook@example.com', name: 'Cli Hook' });
    await t.server.stores.registrations.create(t.fx.publicEvent.id, user.id);
    await until(() => receiver.received.length === 1, 'the delivery');
    const first = receiver.received[0]!;
    new Webhook(secret).verify(first.body, first.headers as Record<string, string>);
    expect(bodyOf(0).type).toBe('registration.created');

    let history = await roster(['webhook', 'deliveries', String(id), '--json']);
    await until(async () => {
      history = await roster(['webhook', 'deliveries', String(id), '--json']);
      return (history.json.attempts as unknown[]).length === 1;
    }, 'the attempt recorded');
    const [attempt] = history.json.attempts as { status: number; duration_ms: number; error: string | null }[];
    expect(attempt).toMatchObject({ status: 204, error: null });
    const [delivery] = history.json.deliveries as { id: number; state: string; message_id: string }[];
    expect(delivery).toMatchObject({ state: 'delivered', message_id: first.headers['webhook-id'] });
    const human = await roster(['webhook', 'deliveries', String(id)]);
    expect(human.stdout).toMatch(/attempts:\nTIME +DELIVERY +STATUS +DURATION +ERROR\n\S+ +\d+ +204 +\d+ ms/);

    const again = await roster(['webhook', 'redeliver', String(delivery!.id), '--json']);
    expect(again).toMatchObject({ code: 0, json: { state: 'pending', attempts: 0 } });
    await until(() => receiver.received.length === 2, 'the redelivery');
    expect(receiver.received[1]!.headers['webhook-id']).toBe(first.headers['webhook-id']);
  });

  test('ping is sent as webhook.ping; enable answers an enabled webhook; delete removes it', async () => {
    const ping = await roster(['webhook', 'ping', String(id), '--json']);
    expect(ping.code).toBe(0);
    const before = receiver.received.length;
    await until(() => receiver.received.length === before + 1, 'the ping');
    expect(bodyOf(before)).toMatchObject({ type: 'webhook.ping', data: { webhook: { id } } });
    expect((await roster(['webhook', 'enable', String(id), '--json'])).json).toMatchObject({ id, enabled: true });
    expect((await roster(['webhook', 'delete', String(id)])).stdout).toBe(`deleted webhook ${id}\n`);
    expect((await roster(['webhook', 'list', '--json'])).json).toEqual({ webhooks: [] });
    expect(await t.server.db('webhook_deliveries').where({ webhook_id: id })).toEqual([]);
  });

  test.each([
    ['an unknown type', ['--type', 'registration.exploded'], '--type must be one of registration.created,'],
    ['an unknown event', ['--event', 'no-such-event'], '--event names no event the app can see: "no-such-event"'],
    ['a malformed slug', ['--event', 'Not A Slug'], '--event must be lowercase letters'],
    ['an ftp URL', ['--url', 'ftp://example.com/hook'], '--url must use http or https'],
    [
      'credentials in the URL',
      ['--url', 'http://user:pw@example.com/hook'],
      '--url must not carry a user name or password',
    ],
    [
      'an escape sequence',
      ['--url', 'http://example.com/\u001b[31mred'],
      '--url contains the control character U+001B',
    ],
    [
      'a 3,000-character URL',
      ['--url', `http://example.com/${'a'.repeat(3000)}`],
      '--url is longer than 2048 characters',
    ],
  ])('create refuses %s with one line and stores nothing', async (_label, extra, reason) => {
    const args = ['webhook', 'create', '--client', t.fx.orgApp.clientId, '--url', receiver.url, ...extra];
    const out = await roster(args.slice(0, 5).concat(args.slice(extra[0] === '--url' ? 7 : 5)));
    expect(out.code).toBe(1);
    expect(out.stderr).toContain(`roster: ${reason}`);
    expect(out.stderr.trim().split('\n')).toHaveLength(1);
    expect(await t.server.db('webhooks')).toEqual([]);
  });

  test('an unknown app, webhook or delivery is one line, exit 1; an id that is no number is exit 2', async () => {
    const app = await roster(['webhook', 'create', '--client', 'nope', '--url', receiver.url]);
    expect(app).toMatchObject({ code: 1, stderr: expect.stringMatching(/^roster: .*nope.*\n$/) });
    expect(await roster(['webhook', 'delete', '424242'])).toMatchObject({
      code: 1,
      stderr: 'roster: no webhook 424242\n',
    });
    expect(await roster(['webhook', 'redeliver', '99'])).toMatchObject({ code: 1, stderr: 'roster: no delivery 99\n' });
    for (const bad of ['abc', '-1', '0', '1e3', '9'.repeat(30)]) {
      const out = await roster(['webhook', 'deliveries', bad]);
      expect(out.code).toBe(2);
      expect(out.stderr).toMatch(/^roster: the webhook id must be a positive whole number/);
    }
  });

  test('the per-app cap holds: the next one is refused and not stored', async () => {
    const env = { MAX_WEBHOOKS_PER_APP: '2' };
    const create = () => roster(['webhook', 'create', '--client', t.fx.otherApp.clientId, '--url', receiver.url], env);
    expect((await create()).code).toBe(0);
    expect((await create()).code).toBe(0);
    const third = await create();
    expect(third).toMatchObject({ code: 1, stderr: 'roster: an app may have at most 2 webhooks; delete one first\n' });
    expect(await t.server.db('webhooks')).toHaveLength(2);
  });
});

describe('roster webhook create in production', () => {
  const production = { NODE_ENV: 'production', BASE_URL: 'https://roster.example.com' };
  test.each([
    ['http://example.com/hook', '--url must use https in production'],
    ['https://127.0.0.1/hook', '--url is refused: 127.0.0.1 is a loopback address'],
    ['https://[::ffff:127.0.0.1]/hook', '--url is refused: ::ffff:7f00:1 is an IPv4-mapped address of 127.0.0.1'],
    ['https://169.254.169.254/latest', '--url is refused: 169.254.169.254 is a link-local address'],
    ['https://0x7f.1/hook', '--url is refused: 127.0.0.1 is a loopback address'],
    ['https://localhost/hook', '--url is refused: localhost resolves to a refused address'],
  ])('%s is refused', async (url, reason) => {
    const out = await roster(['webhook', 'create', '--client', t.fx.orgApp.clientId, '--url', url], production);
    expect(out.code).toBe(1);
    expect(out.stderr).toContain(`roster: ${reason}`);
  });

  test('a host listed in WEBHOOK_ALLOW_HOSTS is allowed, https still required', async () => {
    const env = { ...production, WEBHOOK_ALLOW_HOSTS: '127.0.0.1' };
    const ok = await roster(
      ['webhook', 'create', '--client', t.fx.orgApp.clientId, '--url', 'https://127.0.0.1:9/h', '--json'],
      env,
    );
    expect(ok.code).toBe(0);
    expect(ok.json.url).toBe('https://127.0.0.1:9/h');
    await roster(['webhook', 'delete', String(ok.json.id)]);
  });
});
