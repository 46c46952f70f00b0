import { hashPassword } from '../../src/lib/secrets.js';
import { startServer, type TestServer } from '../helpers/harness.js';

// Security review of the audit trail and the readiness gauge: regressions found by reading the change as an attacker.
const PASSWORD = 'Tr0ub4dor&3-review';
let server: TestServer;

beforeAll(async () => {
  server = await startServer();
  await server.stores.users.create({
    email: 'grace@example.com',
    name: 'Grace',
    passwordHash: await hashPassword(PASSWORD),
  });
});
afterAll(() => server?.close());

/** A sign-in through the account page's form, as a browser posts it (CSRF token and cookie included). */
async function signInForm(email: string, password: string): Promise<number> {
  const form = await fetch(`${server.url}/account`);
  const csrf = /name="_csrf" value="([^"]+)"/.exec(await form.text())![1]!;
  const cookie = form.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');
  const res = await fetch(`${server.url}/account/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', Cookie: cookie },
    body: new URLSearchParams({ email, password, _csrf: csrf }).toString(),
  });
  await res.arrayBuffer();
  return res.status;
}

const allRows = async () => JSON.stringify(await server.stores.audit.page({}, 0, 100_000));

describe('a password typed in the email field', () => {
  it('never reaches the audit trail (a user who typed their password first)', async () => {
    // The classic slip: the password goes in the email field, then the form is sent.
    expect(await signInForm(PASSWORD, PASSWORD)).toBe(401);
    expect(await signInForm('hunter2-in-the-email-field', 'anything')).toBe(401);
    // Also a password shaped like an address.
    expect(await signInForm('P@ssw0rd.example', 'anything')).toBe(401);
    const rows = await allRows();
    expect(rows).not.toContain(PASSWORD.toLowerCase());
    expect(rows).not.toContain('hunter2-in-the-email-field');
    expect(rows).not.toContain('p@ssw0rd.example');
  });

  it("still names the account a failed sign-in was aimed at, on that account's rows", async () => {
    expect(await signInForm('Grace@Example.com', 'wrong password')).toBe(401);
    const grace = await server.stores.users.findByEmail('grace@example.com');
    const rows = await server.stores.audit.page({ action: 'sign_in.failed', userId: grace!.id }, 0, 100);
    expect(rows.map((r) => r.subject)).toContain('grace@example.com');
  });
});

describe('the roster_ready gauge', () => {
  it('costs the database one readiness query however many scrapes arrive at once', async () => {
    let pings = 0;
    const count = (q: { sql?: string }) => {
      if (q.sql?.trim().toLowerCase() === 'select 1') pings += 1;
    };
    server.db.on('query', count);
    const started = performance.now();
    try {
      const scrapes = await Promise.all(
        Array.from({ length: 25 }, async () => (await fetch(`${server.url}/metrics`)).text()),
      );
      for (const text of scrapes) expect(text).toMatch(/^roster_ready 1$/m);
    } finally {
      server.db.removeListener('query', count);
    }
    // An answer is shared for a second: on a loaded machine the 25 scrapes may spread over more than one.
    const seconds = Math.ceil((performance.now() - started) / 1000);
    expect(pings).toBeGreaterThanOrEqual(1);
    expect(pings).toBeLessThanOrEqual(Math.max(2, seconds + 1));
    expect(pings).toBeLessThan(25);
  });
});
