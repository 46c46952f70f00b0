import { PAGE_PATHS } from '../../src/http/route-format.js';
import { mintAccessToken } from '../../src/oidc/mint-token.js';
import { hashPassword } from '../../src/lib/secrets.js';
import { resetLinkFor } from '../../src/http/reset-link.js';
import { PasswordResetService } from '../../src/services/password-reset-service.js';
import { createServices } from '../../src/services/services.js';
import type { UserRow } from '../../src/stores/types.js';
import { startMailbox, type Mailbox } from '../helpers/mailbox.js';
import { startServer, type TestServer } from '../helpers/harness.js';
import { startReceiver, type Receiver } from '../helpers/receivers.js';
import { until } from '../helpers/wait.js';
import { routesOf, type Route } from '../helpers/routes.js';
import { authorizationParams, csrfOf } from './sign-in-forms.js';

// Every form a browser posts to the pages (/account, its password reset, /interaction) needs the CSRF token
// of the page it came from: without one, or with another session's, it is refused with 403 and changes
// nothing. The routes come from the Express app itself, so a form route added later is checked too.
let server: TestServer;
let mailbox: Mailbox;
/** Where the webhook forms' webhooks point: it answers 204. */
let receiver: Receiver;
beforeAll(async () => {
  mailbox = await startMailbox();
  receiver = await startReceiver((_req, res) => res.writeHead(204).end());
  // With SMTP the "forgot your password" form does something, and so must check its token.
  server = await startServer({ SMTP_URL: mailbox.url, MAIL_FROM: 'Roster <no-reply@roster.test>' });
});
afterAll(async () => {
  await server?.close();
  await mailbox?.close();
  await receiver?.close();
});

type Fields = Record<string, string>;
interface Answer {
  status: number;
  location: string | null;
  text: string;
}

/** One browser: its cookies (by name; these pages' paths never share a name), sent with every request. */
class Browser {
  readonly cookies = new Map<string, string>();

  private async answer(res: Response): Promise<Answer> {
    for (const line of res.headers.getSetCookie()) {
      const [pair = ''] = line.split(';');
      const at = pair.indexOf('=');
      const [name, value] = [pair.slice(0, at).trim(), pair.slice(at + 1)];
      // Cleared cookies come back empty and already expired.
      if (value === '' || /expires=Thu, 01 Jan 1970/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return { status: res.status, location: res.headers.get('location'), text: await res.text() };
  }

  private header(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  async get(path: string): Promise<Answer> {
    return this.answer(
      await fetch(new URL(path, server.url), { headers: { Cookie: this.header() }, redirect: 'manual' }),
    );
  }

  async post(path: string, fields: Fields): Promise<Answer> {
    const res = await fetch(new URL(path, server.url), {
      method: 'POST',
      headers: { Cookie: this.header(), 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields),
      redirect: 'manual',
    });
    return this.answer(res);
  }

  /** A copy, so one post does not change the cookies the next one is sent with. */
  clone(): Browser {
    const copy = new Browser();
    for (const [name, value] of this.cookies) copy.cookies.set(name, value);
    return copy;
  }
}

const PASSWORD = 'a long and careful passphrase';
let people = 0;

interface Person {
  user: UserRow;
  /** An app of their own, for the app forms, and one they have not signed in to yet. */
  app: { id: number; clientId: string; redirectUri: string };
  /** An app they signed in to, for the revoke form. */
  authorized: { clientId: string; redirectUri: string };
}

/** A user with a password, an app of their own, and an app they have authorized. */
async function person(): Promise<Person> {
  people += 1;
  const { users, apps } = server.stores;
  const user = await users.create({
    email: `person${people}@example.com`,
    name: `Person ${people}`,
    passwordHash: await hashPassword(PASSWORD),
  });
  const own = await apps.create({ ownerId: user.id, name: `Own ${people}`, redirectUris: ['https://own.example/cb'] });
  const owner = await users.create({ email: `vendor${people}@example.com`, name: `Vendor ${people}` });
  const redirectUri = 'https://vendor.example/cb';
  const vendor = await apps.create({ ownerId: owner.id, name: `Vendor app ${people}`, redirectUris: [redirectUri] });
  await mintAccessToken(server.provider, { accountId: user.uid, clientId: vendor.app.clientId, scope: 'openid' });
  return {
    user,
    app: { id: own.app.id, clientId: own.app.clientId, redirectUri: 'https://own.example/cb' },
    authorized: { clientId: vendor.app.clientId, redirectUri },
  };
}

/** A form as its page hands it to a browser: where it posts, its fields with their `_csrf`, and that browser. */
interface Form {
  path: string;
  fields: Fields & { _csrf: string };
  browser: Browser;
  /** Its token is bound to a session, an interaction or a reset link (the sign-in and "forgot" forms are before any). */
  bound: boolean;
}

async function signedIn(who: Person): Promise<{ browser: Browser; csrf: string }> {
  const browser = new Browser();
  const page = await browser.get('/account');
  const login = await browser.post('/account/login', {
    _csrf: csrfOf(page.text),
    email: who.user.email!,
    password: PASSWORD,
  });
  if (login.status !== 303) throw new Error(`account sign-in answered ${login.status}`);
  return { browser, csrf: csrfOf((await browser.get('/account')).text) };
}

/** An authorization request at the sign-in page: the browser, the interaction's path and its form's token. */
async function interaction(
  who: Person,
  client: { clientId: string; redirectUri: string } = who.authorized,
): Promise<{ browser: Browser; path: string; csrf: string }> {
  const browser = new Browser();
  const auth = await browser.get(`/auth?${authorizationParams(client)}`);
  if (auth.status !== 303 || !auth.location) throw new Error(`/auth answered ${auth.status}`);
  const path = new URL(auth.location, server.url).pathname;
  return { browser, path, csrf: csrfOf((await browser.get(path)).text) };
}

/** The same, signed in, at an app not yet authorized: the interaction has moved on to the consent page. */
async function consentInteraction(who: Person): Promise<{ browser: Browser; path: string; csrf: string }> {
  const { browser, path, csrf } = await interaction(who, who.app);
  const login = await browser.post(`${path}/login`, { _csrf: csrf, email: who.user.email!, password: PASSWORD });
  let location = login.location;
  // The provider resumes the request and sends the browser on to the next step.
  const ours = (at: string) => new URL(at, server.url).origin === server.url;
  for (let hops = 0; location && ours(location) && !location.includes('/interaction/') && hops < 5; hops += 1) {
    location = (await browser.get(location)).location;
  }
  if (!location?.includes('/interaction/')) throw new Error(`no consent step after signing in (${login.status})`);
  const consent = new URL(location, server.url).pathname;
  return { browser, path: consent, csrf: csrfOf((await browser.get(consent)).text) };
}

/** Until no webhook delivery waits to be sent: the delivery worker writes nothing while the database is compared. */
const deliveriesSettled = () =>
  until(async () => (await server.db('webhook_deliveries').where({ state: 'pending' }).first()) === undefined, 'sent');

/** A webhook of `who`'s own app, with one delivery already sent (a test ping). */
async function webhookOf(who: Person) {
  const { webhook } = await server.services.webhooks.create({ appId: who.app.id, url: receiver.url });
  const delivery = await server.services.webhooks.ping(webhook.id);
  server.nudgeWebhooks();
  await deliveriesSettled();
  return { webhook, delivery };
}

/**
 * Opens the form of `route` for `who`, as a browser would, with fields that would change something. A form
 * route added to the app fails here until this test knows how to open it.
 */
async function openForm(route: Route, who: Person): Promise<Form> {
  const session = async (path: string, fields: Fields = {}) => {
    const { browser, csrf } = await signedIn(who);
    return { path, fields: { ...fields, _csrf: csrf }, browser, bound: true };
  };
  const appPath = route.path.replace(':id', String(who.app.id));
  switch (route.path) {
    case '/account/login': {
      const browser = new Browser();
      const csrf = csrfOf((await browser.get('/account')).text);
      return {
        path: route.path,
        fields: { _csrf: csrf, email: who.user.email!, password: PASSWORD },
        browser,
        bound: false,
      };
    }
    case '/account/logout':
      return session(route.path);
    case '/account/apps':
      return session(route.path, { name: 'Forged', redirect_uris: 'https://forged.example/cb', type: 'public' });
    case '/account/apps/:id/secret':
    case '/account/apps/:id/token':
    case '/account/apps/:id/delete':
      return session(appPath, { confirm: 'yes' });
    case '/account/apps/:id/edit':
      return session(appPath, { redirect_uris: 'https://forged.example/cb' });
    case '/account/apps/:id/webhooks':
      return session(route.path.replace(':id', String(who.app.id)), { url: receiver.url });
    case '/account/webhooks/:id/ping': {
      const { webhook } = await webhookOf(who);
      return session(route.path.replace(':id', String(webhook.id)));
    }
    case '/account/webhooks/:id/enable': {
      const { webhook } = await webhookOf(who);
      await server.db('webhooks').where({ id: webhook.id }).update({ enabled: false, disabled_reason: 'failing' });
      return session(route.path.replace(':id', String(webhook.id)));
    }
    case '/account/webhooks/:id/delete': {
      const { webhook } = await webhookOf(who);
      return session(route.path.replace(':id', String(webhook.id)), { confirm: 'yes' });
    }
    case '/account/webhooks/:id/deliveries/:deliveryId/redeliver': {
      const { webhook, delivery } = await webhookOf(who);
      const path = route.path.replace(':id', String(webhook.id)).replace(':deliveryId', String(delivery.id));
      return session(path);
    }
    case '/account/tokens':
      return session(route.path, { name: 'Forged', scope: 'openid', expires_in: '365d' });
    case '/account/tokens/:id/delete': {
      const { row } = await server.services.personalTokens.create(who.user, { name: 'kept', scopes: ['openid'] });
      return session(route.path.replace(':id', String(row.id)), { confirm: 'yes' });
    }
    case '/account/authorizations/:clientId/revoke':
      return session(route.path.replace(':clientId', who.authorized.clientId), { confirm: 'yes' });
    case '/account/password/forgot': {
      const browser = new Browser();
      const csrf = csrfOf((await browser.get(route.path)).text);
      return { path: route.path, fields: { _csrf: csrf, email: who.user.email! }, browser, bound: false };
    }
    case '/account/password/reset': {
      const resets = new PasswordResetService(
        server.stores,
        createServices(server.stores).users,
        resetLinkFor(server.url),
      );
      const link = new URL((await resets.issueLink(who.user)).url);
      const browser = new Browser();
      const csrf = csrfOf((await browser.get(`${link.pathname}${link.search}`)).text);
      const password = 'a forged new passphrase';
      const token = link.searchParams.get('token')!;
      return {
        path: route.path,
        fields: { _csrf: csrf, token, password, confirmation: password },
        browser,
        bound: true,
      };
    }
    case '/interaction/:uid/login': {
      const { browser, path, csrf } = await interaction(who);
      return {
        path: `${path}/login`,
        fields: { _csrf: csrf, email: who.user.email!, password: PASSWORD },
        browser,
        bound: true,
      };
    }
    case '/interaction/:uid/abort': {
      const { browser, path, csrf } = await interaction(who);
      return { path: `${path}/abort`, fields: { _csrf: csrf }, browser, bound: true };
    }
    case '/interaction/:uid/consent': {
      const { browser, path, csrf } = await consentInteraction(who);
      return {
        path: `${path}/consent`,
        fields: { _csrf: csrf, decision: 'allow', scope: 'openid' },
        browser,
        bound: true,
      };
    }
    default:
      throw new Error(`${route.method} ${route.path} is a form route this test cannot open yet: teach openForm`);
  }
}

/** Every row of every table, by table: what "nothing changed" compares. */
async function snapshot(): Promise<Map<string, string[]>> {
  const { db } = server;
  const tables: string[] =
    db.client.config.client === 'pg'
      ? await db('pg_tables')
          .where({ schemaname: db.raw('current_schema()') })
          .pluck('tablename')
      : await db('sqlite_master').where({ type: 'table' }).andWhereNot('name', 'like', 'sqlite_%').pluck('name');
  const rows = await Promise.all(
    tables.map(async (table) => [table, (await db(table).select()).map((r) => JSON.stringify(r)).sort()] as const),
  );
  return new Map(rows);
}

/** The tables whose rows differ between two snapshots. */
const changed = (before: Map<string, string[]>, after: Map<string, string[]>) =>
  [...after.keys()].filter((t) => JSON.stringify(before.get(t)) !== JSON.stringify(after.get(t))).sort();

/** Posts and reports the status and what changed in the database. */
async function attempt(browser: Browser, path: string, fields: Fields) {
  const before = await snapshot();
  const { status } = await browser.post(path, fields);
  return { status, changed: changed(before, await snapshot()) };
}

const REFUSED = { status: 403, changed: [] };

/** Our own pages; /auth and /session are the provider's (OAuth requests, and a logout form with its own check). */
const OUR_PAGES = PAGE_PATHS.filter((p) => p !== '/auth' && p !== '/session');

/** The form routes of our pages: every path that takes anything but a GET under one of theirs, once each. */
function formRoutes(): Route[] {
  const underPages = (path: string) => OUR_PAGES.some((p) => path === p || path.startsWith(`${p}/`));
  const unsafe = routesOf(server.express).filter(
    (r) => !['GET', 'HEAD', 'OPTIONS'].includes(r.method) && underPages(r.path),
  );
  return [...new Map(unsafe.map((r) => [r.path, r])).values()];
}

test('the form routes are read from the app: the account, password-reset and sign-in forms are among them', () => {
  const found = formRoutes().map((r) => `${r.method} ${r.path}`);
  expect(found).toEqual(
    expect.arrayContaining([
      'POST /account/login',
      'POST /account/logout',
      'POST /account/apps',
      'POST /account/apps/:id/delete',
      'POST /account/authorizations/:clientId/revoke',
      'POST /account/apps/:id/webhooks',
      'POST /account/webhooks/:id/ping',
      'POST /account/webhooks/:id/deliveries/:deliveryId/redeliver',
      'POST /account/password/forgot',
      'POST /account/password/reset',
      'POST /interaction/:uid/login',
      'POST /interaction/:uid/consent',
      'POST /interaction/:uid/abort',
    ]),
  );
});

test('every form route refuses a post without its CSRF token, or with another session’s, with 403 and changes nothing', async () => {
  const report = [];
  const expected = [];
  for (const route of formRoutes()) {
    const name = `${route.method} ${route.path}`;
    const [victim, attacker] = [await person(), await person()];
    const form = await openForm(route, victim);
    const foreign = await openForm(route, attacker);
    const { _csrf: _, ...withoutToken } = form.fields;

    const entry: Record<string, unknown> = {
      route: name,
      withoutToken: await attempt(form.browser.clone(), form.path, withoutToken),
      withAnEmptyToken: await attempt(form.browser.clone(), form.path, { ...withoutToken, _csrf: '' }),
      withAnotherSessionsToken: await attempt(form.browser.clone(), form.path, {
        ...withoutToken,
        _csrf: foreign.fields._csrf,
      }),
    };
    const row: Record<string, unknown> = {
      route: name,
      withoutToken: REFUSED,
      withAnEmptyToken: REFUSED,
      withAnotherSessionsToken: REFUSED,
    };
    if (form.bound) {
      // Its cookie too, as a cookie planted from a sibling host would be: the token is not this session's.
      const planted = form.browser.clone();
      for (const [cookie, value] of foreign.browser.cookies)
        if (value === foreign.fields._csrf) planted.cookies.set(cookie, value);
      entry.withAnotherSessionsTokenAndCookie = await attempt(planted, form.path, {
        ...withoutToken,
        _csrf: foreign.fields._csrf,
      });
      row.withAnotherSessionsTokenAndCookie = REFUSED;
    }
    // The same post with its own token does change something: the refusals above were the token's doing.
    const accepted = await attempt(form.browser.clone(), form.path, form.fields);
    // A ping or redelivery it queued is sent before the next route's database is compared.
    await deliveriesSettled();
    const answered = accepted.status; // the same on both sides: shown in a failure's diff, not compared
    entry.withItsToken = { answered, refused: answered === 403, changesSomething: accepted.changed.length > 0 };
    row.withItsToken = { answered, refused: false, changesSomething: true };
    // A reset mail goes out after the answer: wait for it, so its link is not written during the next route.
    if (route.path === '/account/password/forgot') await mailbox.next(victim.user.email!);
    report.push(entry);
    expected.push(row);
  }
  expect(report).toEqual(expected);
}, 120_000);

test('/account/logout without its CSRF token, or with another session’s, is refused and the session goes on', async () => {
  const [victim, attacker] = [await person(), await person()];
  const { browser } = await signedIn(victim);
  const { csrf: attackersToken } = await signedIn(attacker);
  const stillSignedIn = async () => {
    const page = await browser.get('/account');
    return page.status === 200 && page.text.includes(`Signed in as ${victim.user.email}`);
  };
  expect(await stillSignedIn()).toBe(true);

  const bare = await browser.post('/account/logout', {});
  expect(bare.status).toBe(403);
  expect(bare.text).toContain('This form has expired');
  expect(await stillSignedIn()).toBe(true);
  const forged = await browser.post('/account/logout', { _csrf: attackersToken });
  expect(forged.status).toBe(403);
  expect(await stillSignedIn()).toBe(true);

  // With its own token it signs out.
  const page = await browser.get('/account');
  const out = await browser.post('/account/logout', { _csrf: csrfOf(page.text) });
  expect(out).toMatchObject({ status: 303, location: '/account' });
  expect(await stillSignedIn()).toBe(false);
});
