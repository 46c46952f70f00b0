import { Webhook } from 'standardwebhooks';
import type { ClientAppRow, EventRow, UserRow } from '../../src/stores/types.js';
import { signedInUser, type AccountSession, type PageAnswer } from '../helpers/account-session.js';
import { startServer, type TestServer } from '../helpers/harness.js';
import { startReceiver, type Receiver } from '../helpers/receivers.js';
import { until } from '../helpers/wait.js';

// An app's webhooks at the account pages, against the real server and real receivers: added through the
// form (its secret shown once), deliveries and attempts as the owner sees them, a test ping, a redelivery,
// deleting, a disabled webhook enabled again; CSRF, ownership and hostile input refused, changing nothing.

let server: TestServer;
/** Answers each request with `okStatus` (204 unless a test says otherwise). */
let ok: Receiver;
let okStatus = 204;
/** Answers every request with 500. */
let failing: Receiver;
let user: UserRow;
let session: AccountSession;
let app: ClientAppRow;
let event: EventRow;
let count = 0;

beforeAll(async () => {
  [server, ok, failing] = await Promise.all([
    startServer(),
    startReceiver((_req, res) => res.writeHead(okStatus).end()),
    startReceiver((_req, res) => res.writeHead(500).end('no')),
  ]);
});

afterAll(async () => {
  await ok?.close();
  await failing?.close();
  await server?.close();
});

// A webhook left behind would be sent the next test's changes: each test starts with none.
afterEach(async () => {
  for (const w of await server.services.webhooks.list()) await server.services.webhooks.delete(w.id);
});

beforeEach(async () => {
  count += 1;
  okStatus = 204;
  ({ user, session } = await signedInUser(server, 'Wanda'));
  ({ app } = await server.stores.apps.create({
    ownerId: user.id,
    name: `Hook App ${count}`,
    redirectUris: ['https://hook.example/cb'],
  }));
  event = await server.stores.events.create({ slug: `hook-fair-${count}`, name: 'Hook Fair', organizerIds: [user.id] });
});

const listPath = (appId = app.id) => `/account/apps/${appId}/webhooks`;
const webhookPath = (id: number | string, rest = '') => `/account/webhooks/${id}${rest}`;

/** The one line of the page's alert, or undefined. */
const alertOf = (text: string) => /<p class="alert" role="alert">([^]*?)<\/p>/.exec(text)?.[1];
/** The page as its reader sees the words: tags dropped, white space squeezed. */
const textOf = (page: string) => page.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ');
/** The secret the creation page shows once. */
const secretOf = (text: string) => /id="webhook-secret" class="secret">(whsec_[^<]+)</.exec(text)?.[1];

/** Adds a webhook through the form; returns the answer, the new webhook's id and its secret. */
async function addWebhook(fields: Record<string, string | readonly string[]>) {
  const answer = await session.post(listPath(), fields);
  const secret = secretOf(answer.text);
  return { answer, secret, id: answer.status === 201 ? (await webhooksOf()).at(-1)!.id : undefined };
}

const webhooksOf = (appId = app.id) => server.services.webhooks.list(appId);

/** The request that carried this delivery (its `webhook-id`), once it has reached the receiver. */
async function receivedOf(receiver: Receiver, webhookId: number) {
  await until(async () => (await server.services.webhooks.history(webhookId)).deliveries.length > 0, 'queued');
  const [delivery] = (await server.services.webhooks.history(webhookId)).deliveries;
  const sent = () => receiver.received.find((r) => r.headers['webhook-id'] === delivery!.messageId);
  await until(() => sent() !== undefined, `delivery ${delivery!.id} reaches the receiver`);
  return { delivery: delivery!, got: sent()! };
}

/** Polls the webhook's page until `done` holds for its text. */
async function pageUntil(id: number, done: (text: string) => boolean, what: string): Promise<string> {
  let text = '';
  await until(async () => done((text = (await session.get(webhookPath(id))).text)), what);
  return text;
}

/** The row of one delivery on the webhook's page. */
const deliveryRow = (text: string, deliveryId: number) =>
  new RegExp(`<tr id="delivery-${deliveryId}">([^]*?)</tr>`).exec(text)?.[1] ?? '';

describe('adding a webhook', () => {
  it('shows the secret once; the list shows the webhook, never the secret', async () => {
    const empty = await session.get(listPath());
    expect(empty.status).toBe(200);
    expect(empty.text).toContain('This app has no webhooks.');
    expect((await session.get('/account')).text).toContain(`href="${listPath()}"`);

    const { answer, secret, id } = await addWebhook({
      url: ok.url,
      types: ['registration.created', 'event.deleted'],
      event: event.slug,
    });
    expect(answer.status).toBe(201);
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/=]{20,}$/);
    expect(answer.text).toContain('shows it this once');
    const [stored] = await webhooksOf();
    expect(stored).toMatchObject({
      id,
      url: ok.url,
      types: ['registration.created', 'event.deleted'],
      eventSlug: event.slug,
      enabled: true,
    });

    const list = await session.get(listPath());
    expect(list.text).toContain(`<code>${ok.url}</code>`);
    expect(list.text).toContain('<code>registration.created</code>, <code>event.deleted</code>');
    expect(list.text).toContain(`only <code>${event.slug}</code>`);
    expect(list.text).toContain('<strong class="webhook-state">Enabled</strong>');
    expect(list.text).toContain('none yet');
    expect(list.text).not.toContain(secret);
    expect((await session.get(webhookPath(id!))).text).not.toContain(secret);
  });

  it('with no type checked and no event it sends every type of every event', async () => {
    const { answer } = await addWebhook({ url: ok.url });
    expect(answer.status).toBe(201);
    expect(await webhooksOf()).toMatchObject([{ types: null, eventSlug: null }]);
    const list = await session.get(listPath());
    expect(list.text).toContain('every type');
    expect(list.text).toContain('every event the app can see');
  });
});

describe('deliveries as the owner sees them', () => {
  it('a registration made afterwards reaches the receiver, signed; the page shows it delivered with 204', async () => {
    const { secret, id } = await addWebhook({ url: ok.url, types: 'registration.created', event: event.slug });
    const guest = await server.stores.users.create({ email: `guest${count}@example.com`, name: 'Gus Guest' });
    await server.stores.registrations.create(event.id, guest.id);
    const { delivery, got } = await receivedOf(ok, id!);
    const payload = new Webhook(secret!).verify(got.body, got.headers as Record<string, string>) as {
      type: string;
      data: { event: { slug: string }; registrant: { id: string } };
    };
    expect(payload.type).toBe('registration.created');
    expect(payload.data.event.slug).toBe(event.slug);
    expect(payload.data.registrant.id).toBe(guest.uid);

    const text = await pageUntil(id!, (t) => deliveryRow(t, delivery.id).includes('delivered'), 'shown delivered');
    const row = deliveryRow(text, delivery.id);
    expect(row).toContain('<strong class="state">delivered</strong>');
    expect(row).toContain('HTTP <span class="status">204</span>');
    expect(row).toContain(`<code>${got.headers['webhook-id'] as string}</code>`);
    expect(row).toMatch(/class="attempts">1</);
    // The attempt: its time, status and duration.
    expect(text).toMatch(/<td data-label="Status">204<\/td>\s*<td data-label="Duration">\d+ ms<\/td>/);
    expect((await session.get(listPath())).text).toContain('<strong class="delivery-state">delivered</strong>');
  });

  it('a test ping reaches the receiver as webhook.ping', async () => {
    const { secret, id } = await addWebhook({ url: ok.url });
    const pinged = await session.post(webhookPath(id!, '/ping'), {});
    expect(pinged).toMatchObject({ status: 303, location: webhookPath(id!, '?done=pinged') });
    const { got } = await receivedOf(ok, id!);
    const payload = new Webhook(secret!).verify(got.body, got.headers as Record<string, string>) as {
      type: string;
      data: { webhook: { id: number } };
    };
    expect(payload).toMatchObject({ type: 'webhook.ping', data: { webhook: { id } } });
    const text = await pageUntil(id!, (t) => t.includes('class="state">delivered'), 'the ping shown delivered');
    expect(text).toContain('test ping (webhook.ping)');
    expect((await session.get(webhookPath(id!, '?done=pinged'))).text).toContain(
      'A test ping (webhook.ping) was queued',
    );
  });

  it('a receiver answering 500 shows the failure and its error', async () => {
    const { id } = await addWebhook({ url: failing.url });
    expect((await session.post(webhookPath(id!, '/ping'), {})).status).toBe(303);
    // A ping is never retried: its one failed attempt ends it.
    const text = await pageUntil(id!, (t) => t.includes('class="state">failed'), 'the ping shown failed');
    expect(text).toContain('HTTP <span class="status">500</span>');
    expect(text).toContain('<span class="error">answered 500 Internal Server Error</span>');
    expect(text).toMatch(
      /<td data-label="Status">500<\/td>[^]*?<td data-label="Error">answered 500 Internal Server Error/,
    );
    const list = (await session.get(listPath())).text;
    expect(textOf(list)).toContain('failed · test ping (webhook.ping) HTTP 500 answered 500 Internal Server Error');
  });

  it('redelivering sends the delivery again with the same webhook-id', async () => {
    const { id } = await addWebhook({ url: ok.url });
    await session.post(webhookPath(id!, '/ping'), {});
    const [delivery] = (await server.services.webhooks.history(id!)).deliveries;
    await pageUntil(id!, (t) => deliveryRow(t, delivery!.id).includes('delivered'), 'the ping delivered');
    const sent = ok.received.filter((r) => r.headers['webhook-id'] === delivery!.messageId).length;
    expect(sent).toBe(1);

    const again = await session.post(webhookPath(id!, `/deliveries/${delivery!.id}/redeliver`), {});
    expect(again).toMatchObject({ status: 303, location: webhookPath(id!, '?done=redelivered') });
    await until(
      () => ok.received.filter((r) => r.headers['webhook-id'] === delivery!.messageId).length === 2,
      'the redelivery reaches the receiver',
    );
    await until(async () => (await server.services.webhooks.history(id!)).attempts.length === 2, 'two attempts');
    const { attempts } = await server.services.webhooks.history(id!);
    expect(attempts.every((a) => a.messageId === delivery!.messageId)).toBe(true);
    // Its webhook-id three times: its row of the deliveries, and its two attempts.
    const text = await pageUntil(id!, (t) => t.split(`<code>${delivery!.messageId}</code>`).length === 4, 'listed');
    expect(deliveryRow(text, delivery!.id)).toContain('delivered');
  });
});

describe('deleting a webhook', () => {
  it('asks first, deletes only when confirmed, and is gone after', async () => {
    const { id } = await addWebhook({ url: ok.url });
    const asked = await session.get(webhookPath(id!, '/delete'));
    expect(asked.status).toBe(200);
    expect(asked.text).toContain(`<h1>Delete the webhook to ${ok.url}?</h1>`);
    expect(asked.text).toContain('<input type="hidden" name="confirm" value="yes" />');
    expect(asked.text).toContain(`href="${listPath()}">Cancel`);
    const unconfirmed = await session.post(webhookPath(id!, '/delete'), {});
    expect(unconfirmed.status).toBe(200);
    expect(unconfirmed.text).toContain('This cannot be undone');
    expect(await webhooksOf()).toHaveLength(1);

    const done = await session.post(webhookPath(id!, '/delete'), { confirm: 'yes' });
    expect(done).toMatchObject({ status: 303, location: `${listPath()}?done=deleted` });
    expect(await webhooksOf()).toEqual([]);
    expect((await session.get(done.location!)).text).toContain('The webhook was deleted');
    expect((await session.get(webhookPath(id!))).status).toBe(404);
  });
});

describe('a disabled webhook', () => {
  let quick: TestServer;
  let flaky: Receiver;
  let flakyStatus = 500;
  beforeAll(async () => {
    [quick, flaky] = await Promise.all([
      startServer({ WEBHOOK_DISABLE_AFTER: '1s', WEBHOOK_RETRY_SCHEDULE: '1s,1s' }),
      startReceiver((_req, res) => res.writeHead(flakyStatus).end()),
    ]);
  });
  afterAll(async () => {
    await flaky?.close();
    await quick?.close();
  });

  it('shows why it was disabled, refuses a ping, and is enabled again: what waited is sent', async () => {
    const { user: owner, session: theirs } = await signedInUser(quick, 'Dora');
    const { app: their } = await quick.stores.apps.create({
      ownerId: owner.id,
      name: 'Flaky App',
      redirectUris: ['https://flaky.example/cb'],
    });
    const fair = await quick.stores.events.create({ slug: 'flaky-fair', name: 'Flaky Fair', organizerIds: [owner.id] });
    const made = await theirs.post(`/account/apps/${their.id}/webhooks`, { url: flaky.url });
    expect(made.status).toBe(201);
    const listed = await quick.services.webhooks.list(their.id);
    expect(listed).toHaveLength(1);
    const { id } = listed[0]!;
    const guest = await quick.stores.users.create({ email: 'guest@example.com', name: 'Gus' });
    await quick.stores.registrations.create(fair.id, guest.id);
    await until(async () => !(await quick.services.webhooks.find(id)).enabled, 'disabled', 15_000);

    const list = await theirs.get(`/account/apps/${their.id}/webhooks`);
    expect(textOf(list.text)).toContain(
      'Disabled every attempt failed for 1 s; the last: answered 500 Internal Server Error',
    );
    expect(list.text).not.toContain('Send test ping');
    expect(list.text).toContain(`action="/account/webhooks/${id}/enable"`);
    const deliveries = await quick.db('webhook_deliveries').where({ webhook_id: id }).count({ n: '*' });
    const ping = await theirs.post(`/account/webhooks/${id}/ping`, {});
    expect(ping.status).toBe(409);
    expect(alertOf(ping.text)).toBe('The webhook is disabled: enable it first.');
    expect(await quick.db('webhook_deliveries').where({ webhook_id: id }).count({ n: '*' })).toEqual(deliveries);

    flakyStatus = 204;
    const enabled = await theirs.post(`/account/webhooks/${id}/enable`, {});
    expect(enabled).toMatchObject({ status: 303, location: `/account/apps/${their.id}/webhooks?done=enabled` });
    expect(await quick.services.webhooks.find(id)).toMatchObject({ enabled: true, disabledReason: null });
    const after = await theirs.get(enabled.location!);
    expect(after.text).toContain('The webhook was enabled');
    expect(after.text).toContain('<strong class="webhook-state">Enabled</strong>');
    expect(after.text).not.toContain('disabled-reason');
    // The change that waited while it was disabled is delivered now.
    await until(
      async () => (await quick.services.webhooks.history(id)).deliveries[0]?.state === 'delivered',
      'the waiting delivery sent',
      15_000,
    );
  }, 30_000);
});

describe('refusals', () => {
  /** Every form of one webhook (and of its app), as its pages post them. */
  const forms = (id: number, deliveryId: number): { path: string; fields: Record<string, string> }[] => [
    { path: listPath(), fields: { url: ok.url } },
    { path: webhookPath(id, '/ping'), fields: {} },
    { path: webhookPath(id, '/enable'), fields: {} },
    { path: webhookPath(id, '/delete'), fields: { confirm: 'yes' } },
    { path: webhookPath(id, `/deliveries/${deliveryId}/redeliver`), fields: {} },
  ];

  /** What a refused post must leave as it was. */
  const state = async () => ({
    webhooks: await server.db('webhooks').orderBy('id').select('id', 'enabled', 'updated_at'),
    deliveries: await server.db('webhook_deliveries').orderBy('id').select('id', 'attempts', 'next_attempt_at'),
  });

  it('a post without its CSRF token, or with another session’s, is refused with 403 and stores nothing', async () => {
    const { id } = await addWebhook({ url: ok.url });
    const delivery = await server.services.webhooks.ping(id!);
    await until(async () => (await server.services.webhooks.history(id!)).deliveries[0]?.state !== 'pending', 'sent');
    const { session: other } = await signedInUser(server, 'Mallory');
    for (const { path, fields } of forms(id!, delivery.id)) {
      const before = await state();
      for (const _csrf of [null, '', other.csrf, 'forged']) {
        const refused = await session.post(path, { ...fields, _csrf });
        expect([path, _csrf, refused.status]).toEqual([path, _csrf, 403]);
        expect(alertOf(refused.text)).toBe('This form has expired. Try again.');
      }
      expect(await state()).toEqual(before);
    }
  });

  it('another user’s app, webhook or delivery is the same 404 as a missing one, and nothing changes', async () => {
    const victim = await server.stores.users.create({ email: `victim${count}@example.com`, name: 'Vic' });
    const { app: theirApp } = await server.stores.apps.create({
      ownerId: victim.id,
      name: 'Their <b>App</b>',
      redirectUris: ['https://their.example/cb'],
    });
    const theirs = await server.services.webhooks.create({ appId: theirApp.id, url: `${ok.url}?theirs` });
    const theirPing = await server.services.webhooks.ping(theirs.webhook.id);
    await until(
      async () => (await server.services.webhooks.history(theirs.webhook.id)).deliveries[0]?.state !== 'pending',
      'sent',
    );
    const { id: mine } = await addWebhook({ url: ok.url });
    const before = await state();

    const pairs: [PageAnswer, PageAnswer][] = [
      [await session.get(listPath(theirApp.id)), await session.get(listPath(99_999_999))],
      [
        await session.post(listPath(theirApp.id), { url: ok.url }),
        await session.post(listPath(99_999_999), { url: ok.url }),
      ],
      [await session.get(webhookPath(theirs.webhook.id)), await session.get(webhookPath(99_999_999))],
      [
        await session.get(webhookPath(theirs.webhook.id, '/delete')),
        await session.get(webhookPath(99_999_999, '/delete')),
      ],
    ];
    for (const action of ['/ping', '/enable', '/delete', `/deliveries/${theirPing.id}/redeliver`]) {
      pairs.push([
        await session.post(webhookPath(theirs.webhook.id, action), { confirm: 'yes' }),
        await session.post(webhookPath(99_999_999, action), { confirm: 'yes' }),
      ]);
    }
    for (const [theirAnswer, missing] of pairs) {
      expect(theirAnswer.status).toBe(404);
      expect(theirAnswer.text).toBe(missing.text);
      expect(theirAnswer.text).not.toContain('Their');
      expect(theirAnswer.text).not.toContain('?theirs');
    }
    // Their delivery through my own webhook's path is no delivery of mine either.
    const crossed = await session.post(webhookPath(mine!, `/deliveries/${theirPing.id}/redeliver`), {});
    expect(crossed.status).toBe(404);
    // Ids that are not ids at all.
    for (const bad of ['abc', '1e3', '0', '-1', '99999999999999999999']) {
      expect((await session.get(webhookPath(bad))).status).toBe(404);
      expect((await session.get(`/account/apps/${bad}/webhooks`)).status).toBe(404);
    }
    expect(await state()).toEqual(before);
    expect(await server.services.webhooks.list(theirApp.id)).toHaveLength(1);
  });

  it('hostile input is refused with 400 and one escaped line, the form kept, nothing stored', async () => {
    const hidden = await server.stores.events.create({
      slug: `board-${count}`,
      name: 'Board',
      visibility: 'private',
      organizerIds: [(await server.stores.users.create({ email: `org${count}@example.com`, name: 'Org' })).id],
    });
    const cases: [Record<string, string | string[]>, string][] = [
      [{ url: `${ok.url}\u0001x` }, 'URL contains the control character U+0001.'],
      [{ url: `${ok.url}\nx` }, 'URL contains the control character U+000A.'],
      [{ url: `${ok.url}?${'a'.repeat(3000)}` }, 'URL is longer than 2048 characters.'],
      [{ url: 'not a url' }, 'URL is not an absolute URL.'],
      [{ url: 'javascript:alert(1)//<script>' }, 'URL must use http or https.'],
      [{ url: `http://user:pw@127.0.0.1:${ok.port}/` }, 'URL must not carry a user name or password.'],
      [
        { url: ok.url, types: ['registration.created', '<script>alert(1)</script>'] },
        `Change type must be one of registration.created, registration.deleted, registrant.updated, event.created, event.updated, event.deleted; got &quot;&lt;script&gt;alert(1)&lt;/script&gt;&quot;.`,
      ],
      [
        { url: ok.url, event: '"><img src=x onerror=alert(1)>' },
        'Event must be lowercase letters, digits and single hyphens (1-100 characters).',
      ],
      [{ url: ok.url, event: hidden.slug }, `Event names no event the app can see: &quot;${hidden.slug}&quot;.`],
      [{ url: ok.url, event: 'no-such-event' }, 'Event names no event the app can see: &quot;no-such-event&quot;.'],
    ];
    for (const [fields, reason] of cases) {
      const refused = await session.post(listPath(), fields);
      expect([fields, refused.status, alertOf(refused.text)]).toEqual([fields, 400, reason]);
      expect(alertOf(refused.text)).not.toMatch(/[\n<>]/);
      // What was typed is back in the form, escaped.
      if (typeof fields.event === 'string' && fields.event.includes('<')) {
        expect(refused.text).toContain('value="&quot;&gt;&lt;img src=x onerror=alert(1)&gt;"');
        expect(refused.text).not.toContain('<img src=x');
      }
      if (fields.url!.includes('<script>')) {
        expect(refused.text).toContain('value="javascript:alert(1)//&lt;script&gt;"');
        expect(refused.text).not.toContain('<script>');
      }
    }
    expect(await webhooksOf()).toEqual([]);
  });

  it('what others stored (a URL, a filter, a receiver’s error, a reason) is shown escaped', async () => {
    const { id } = await addWebhook({ url: ok.url });
    const hostile = '<script>alert(1)</script>';
    await server
      .db('webhooks')
      .where({ id })
      .update({
        url: `https://x.example/${hostile}`,
        event_slug: hostile,
        types: JSON.stringify([hostile]),
        enabled: false,
        disabled_reason: `"><img src=x onerror=alert(1)>`,
      });
    const delivery = await server.stores.deliveries.queuePing(id!, `msg_${hostile}`);
    await server.db('webhook_deliveries').where({ id: delivery.id }).update({ state: 'failed', last_error: hostile });
    for (const page of [await session.get(listPath()), await session.get(webhookPath(id!))]) {
      expect(page.status).toBe(200);
      expect(page.text).not.toContain('<script>');
      expect(page.text).not.toContain('<img');
      expect(page.text).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
      expect(page.text).toContain('&quot;&gt;&lt;img src=x onerror=alert(1)&gt;');
    }
  });

  it('past the per-app cap the form answers 409 and keeps what was typed', async () => {
    for (let i = 0; i < server.config.maxWebhooksPerApp; i += 1) {
      await server.services.webhooks.create({ appId: app.id, url: `${ok.url}?n=${i}` });
    }
    const refused = await session.post(listPath(), { url: `${ok.url}?one-more`, types: 'event.created' });
    expect(refused.status).toBe(409);
    expect(alertOf(refused.text)).toBe(
      `An app may have at most ${server.config.maxWebhooksPerApp} webhooks; delete one first.`,
    );
    expect(refused.text).toContain(`value="${ok.url}?one-more"`);
    expect(refused.text).toMatch(/value="event.created"\s+checked/);
    expect(await webhooksOf()).toHaveLength(server.config.maxWebhooksPerApp);
  });

  it('adding a webhook, a test ping and a redelivery count as app changes; refused input does not', async () => {
    const { id } = await addWebhook({ url: ok.url });
    // Refused input is given back: the budget is not spent by mistakes.
    for (let i = 0; i < 25; i += 1) expect((await session.post(listPath(), { url: 'nope' })).status).toBe(400);
    const delivery = await server.services.webhooks.ping(id!);
    let left = 0;
    while ((await server.services.appChanges.reserve(user.id)).allowed) left += 1;
    // 20 an hour: one webhook added, so 19 were left.
    expect(left).toBe(19);
    const before = await state();
    for (const [path, fields] of [
      [listPath(), { url: ok.url }],
      [webhookPath(id!, '/ping'), {}],
      [webhookPath(id!, `/deliveries/${delivery.id}/redeliver`), {}],
    ] as const) {
      const refused = await session.post(path, fields);
      expect(refused.status).toBe(429);
      expect(alertOf(refused.text)).toMatch(/^Too many app changes from your account: try again in \d+ minutes?\.$/);
    }
    await until(async () => (await server.services.webhooks.history(id!)).deliveries[0]?.state !== 'pending', 'sent');
    const after = await state();
    expect(after.webhooks).toEqual(before.webhooks);
    expect(after.deliveries.map((d) => d.id)).toEqual(before.deliveries.map((d) => d.id));
  });

  it('signed out, every webhook page is the sign-in form with 401', async () => {
    const { id } = await addWebhook({ url: ok.url });
    for (const path of [listPath(), webhookPath(id!), webhookPath(id!, '/delete')]) {
      const res = await fetch(`${server.url}${path}`);
      expect(res.status).toBe(401);
      expect(await res.text()).toContain('Your session has ended');
    }
  });
});
