import { request } from 'node:http';
import { loadConfig } from '../../src/config.js';
import { hashPassword } from '../../src/lib/secrets.js';
import { FOLD_WINDOW_MS } from '../../src/services/audit.js';
import { UNSAFE } from '../../src/lib/text.js';
import type { AuditRecord } from '../../src/stores/audit-store.js';
import type { UserRow } from '../../src/stores/types.js';
import { accountSession } from '../helpers/account-session.js';
import { startServer, type TestServer } from '../helpers/harness.js';

// Hostile input at sign-in: a flood of failures grows the trail only as fast as the throttle allows, and what
// an attacker types is stored bounded and shown escaped. Retention prunes in batches.
const PASSWORD = 'a long and careful passphrase';
let server: TestServer;
let victim: UserRow;

beforeAll(async () => {
  server = await startServer();
  victim = await server.stores.users.create({
    email: 'victim@example.com',
    name: 'Vic',
    passwordHash: await hashPassword(PASSWORD),
  });
});
afterAll(() => server?.close());

const rowsFrom = async (address: string) =>
  (await server.stores.audit.page({}, 0, 100_000)).filter((r) => r.address === address);

describe('a flood of failed sign-ins', () => {
  it('folds 300 failures at one account from one address into a row per action and window, counted', async () => {
    const address = '198.51.100.7';
    for (let i = 0; i < 300; i++) {
      await server.services.signIn.attempt({ address, userAgent: 'flood' }, 'target@example.com', `guess-${i}`);
    }
    const rows = await rowsFrom(address);
    // 10 checked (the account's limit), the rest refused by the throttle: a window may split each in two.
    expect(rows.length).toBeLessThanOrEqual(4);
    expect(rows.reduce((n, r) => n + r.count, 0)).toBe(300);
    expect(new Set(rows.map((r) => r.action))).toEqual(new Set(['sign_in.failed', 'sign_in.throttled']));
    expect(JSON.stringify(rows)).not.toContain('guess-');
  });

  it('adds rows for new names only as fast as the per-address throttle lets them be tried', async () => {
    for (let i = 0; i < 300; i++) {
      // Each from another address of the same /64, as one IPv6 client may.
      const from = `2001:db8:1:2::${(i + 1).toString(16)}`;
      await server.services.signIn.attempt({ address: from }, `nobody${i}@example.com`, 'x');
    }
    const rows = (await server.stores.audit.page({}, 0, 100_000)).filter((r) =>
      r.address?.startsWith('2001:db8:1:2::'),
    );
    // 100 names tried (the address's hourly limit), then one throttled row per window.
    expect(rows.length).toBeLessThanOrEqual(100 + 2);
    expect(rows.reduce((n, r) => n + r.count, 0)).toBe(300);
  }, 60_000);

  it('folds over-long names into one row per address, whatever their number', async () => {
    const address = '198.51.100.8';
    for (let i = 0; i < 50; i++) {
      await server.services.signIn.attempt({ address }, `${'x'.repeat(400)}${i}@example.com`, 'x');
    }
    const rows = await rowsFrom(address);
    expect(rows.length).toBeLessThanOrEqual(2);
    expect(rows.every((r) => r.subject === null)).toBe(true);
  });
});

describe('hostile text in a failed sign-in', () => {
  // A header may carry the bytes 0x80-0xff (read back as Latin-1): the C1 controls CSI (0x9b) and NEL (0x85).
  const ua = `<img src=x onerror=alert(1)>\u009b2J\u0085${'A'.repeat(5000)}`;

  /** A form POST through node:http, which sends such a header as its bytes (fetch refuses them). */
  const post = (path: string, headers: Record<string, string>, form: Record<string, string>) =>
    new Promise<number>((resolve, reject) => {
      const body = new URLSearchParams(form).toString();
      const req = request(`${server.url}${path}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'User-Agent': ua, ...headers },
      });
      req.on('response', (res) => {
        res.resume();
        resolve(res.statusCode!);
      });
      req.on('error', reject);
      req.end(body);
    });
  const email = `\u001b]0;pwned\u0007\u202e<b>bold</b>${'e'.repeat(250)}@example.com`;

  it('is stored bounded, with control characters written out', async () => {
    const refused = await post('/account/login', {}, { email, password: 'secret-typed-at-hostile' });
    expect(refused).toBe(403); // no CSRF token: refused before the password is checked, and not recorded
    for (const typed of [email, 'victim@example.com']) {
      // The sign-in form's CSRF token and cookie, as a browser gets them.
      const form = await fetch(`${server.url}/account`);
      const csrf = /name="_csrf" value="([^"]+)"/.exec(await form.text())![1]!;
      const cookie = form.headers
        .getSetCookie()
        .map((c) => c.split(';')[0])
        .join('; ');
      const answer = await post(
        '/account/login',
        { Cookie: cookie },
        { email: typed, password: 'secret-typed-at-hostile', _csrf: csrf },
      );
      expect(answer).toBe(401);
    }
    const rows = (await server.stores.audit.page({ action: 'sign_in.failed' }, 0, 1000)).filter((r) =>
      r.userAgent?.startsWith('<img'),
    );
    expect(rows).toHaveLength(2);
    for (const r of rows) {
      expect(r.userAgent!.length).toBeLessThanOrEqual(200);
      expect(`${r.userAgent}${r.subject ?? ''}`).not.toMatch(UNSAFE);
    }
    expect(rows[0]!.userAgent).toContain('\\x9b2J');
    // Text typed that names no account is never kept (it may be a password in the wrong field); the account's is.
    expect(rows.map((r) => r.subject).sort()).toEqual([null, 'victim@example.com'].sort());
    expect(JSON.stringify(rows)).not.toContain('pwned');
    expect(JSON.stringify(await server.stores.audit.page({}, 0, 100_000))).not.toContain('secret-typed-at-hostile');
  });

  it("is shown escaped on the account's recent activity", async () => {
    const session = await accountSession(server.url, 'victim@example.com', PASSWORD);
    const page = await session.get('/account');
    const activity = page.text.slice(page.text.indexOf('id="recent-activity"'));
    expect(activity).toContain('Sign-in failed');
    expect(activity).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(activity).not.toContain('<img');
  });
});

describe('retention', () => {
  const old = (at: number, action = 'user.created'): AuditRecord => ({
    at,
    actorType: 'operator',
    actor: 'cli:test',
    userId: victim.id,
    action,
    subject: 'old',
    clientId: null,
    address: null,
    userAgent: null,
    outcome: 'success',
    count: 1,
  });

  it('drops rows older than AUDIT_RETENTION_DAYS in batches and keeps the rest', async () => {
    const now = Date.now();
    const day = 86_400_000;
    await server.db.batchInsert(
      'audit_log',
      Array.from({ length: 2500 }, (_, i) => ({
        at: now - 91 * day - i,
        actor_type: 'operator',
        actor: 'cli:test',
        action: 'keys.rotated',
        outcome: 'success',
        count: 1,
      })),
      500,
    );
    await server.stores.audit.add(old(now - 89 * day, 'user.updated'));
    expect(await server.services.audit.prune(now)).toBe(2500);
    const left = await server.stores.audit.page({}, 0, 100_000);
    expect(left.filter((r) => r.action === 'keys.rotated')).toEqual([]);
    expect(left.filter((r) => r.action === 'user.updated')).toHaveLength(1);
    expect(await server.services.audit.prune(now)).toBe(0);
    expect(FOLD_WINDOW_MS).toBeLessThan(day);
  });

  it('is 90 days unless AUDIT_RETENTION_DAYS says otherwise, and refuses nonsense', () => {
    expect(loadConfig({}, false).auditRetentionDays).toBe(90);
    expect(loadConfig({ AUDIT_RETENTION_DAYS: '7' }, false).auditRetentionDays).toBe(7);
    for (const bad of ['0', '-1', '1.5', 'forever']) {
      expect(() => loadConfig({ AUDIT_RETENTION_DAYS: bad }, false)).toThrow(/^AUDIT_RETENTION_DAYS must be/);
    }
  });
});
