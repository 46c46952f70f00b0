import { hashPassword } from '../../src/lib/secrets.js';
import type { Stores } from '../../src/stores/stores.js';
import type { UserRow } from '../../src/stores/types.js';
import { startServer, type TestServer } from './harness.js';

/** A signed-in session of the account pages as a plain HTTP client holds it: its cookies and the last CSRF token. */
export interface AccountSession {
  /** The CSRF token of the last page that carried one. */
  readonly csrf: string;
  /** The Cookie header the browser would send. */
  cookie(): string;
  get(path: string): Promise<PageAnswer>;
  /**
   * A form post; `_csrf` is added unless `fields` names its own (null leaves it out). A field given a list
   * is sent once per value, as checkboxes are.
   */
  post(path: string, fields: Record<string, string | readonly string[] | null>): Promise<PageAnswer>;
}

export interface PageAnswer {
  status: number;
  location: string | null;
  text: string;
}

const csrfIn = (text: string) => /name="_csrf" value="([^"]+)"/.exec(text)?.[1];

export async function accountSession(baseUrl: string, email: string, password: string): Promise<AccountSession> {
  const jar = new Map<string, string>();
  let csrf = '';
  const cookie = () => [...jar].map(([name, value]) => `${name}=${value}`).join('; ');
  const answer = async (res: Response): Promise<PageAnswer> => {
    for (const set of res.headers.getSetCookie()) {
      const [pair = ''] = set.split(';');
      const at = pair.indexOf('=');
      jar.set(pair.slice(0, at), pair.slice(at + 1));
    }
    const text = await res.text();
    csrf = csrfIn(text) ?? csrf;
    return { status: res.status, location: res.headers.get('location'), text };
  };
  const session: AccountSession = {
    get csrf() {
      return csrf;
    },
    cookie,
    async get(path) {
      return answer(await fetch(`${baseUrl}${path}`, { headers: { Cookie: cookie() }, redirect: 'manual' }));
    },
    async post(path, fields) {
      const body = new URLSearchParams();
      for (const [name, value] of Object.entries({ _csrf: csrf, ...fields })) {
        if (value === null) continue;
        for (const one of typeof value === 'string' ? [value] : value) body.append(name, one);
      }
      const res = await fetch(`${baseUrl}${path}`, {
        method: 'POST',
        headers: { Cookie: cookie(), 'Content-Type': 'application/x-www-form-urlencoded' },
        body,
        redirect: 'manual',
      });
      return answer(res);
    },
  };
  await session.get('/account');
  const login = await session.post('/account/login', { email, password });
  if (login.status !== 303) throw new Error(`account sign-in answered ${login.status}`);
  await session.get('/account');
  return session;
}

const PASSWORD = 'a long and careful passphrase';
let signedIn = 0;

/** A new user with a password, signed in to the account pages: a fresh owner for each test. */
export async function signedInUser(
  server: { url: string; stores: Stores },
  name: string,
): Promise<{ user: UserRow; session: AccountSession }> {
  signedIn += 1;
  const user = await server.stores.users.create({
    email: `${name.toLowerCase()}${signedIn}@example.com`,
    name,
    passwordHash: await hashPassword(PASSWORD),
  });
  return { user, session: await accountSession(server.url, user.email!, PASSWORD) };
}

/** A test file's server and, for the test running, its fresh owner signed in; `n` numbers the tests. */
export interface SignedInOwner {
  server: TestServer;
  user: UserRow;
  session: AccountSession;
  n: number;
}

/**
 * A server for the test file and, before each test, a fresh owner named `name` signed in to the account
 * pages; `n` numbers the tests, for names that must not repeat.
 */
export function useSignedInOwner(name: string): SignedInOwner {
  const ctx = { n: 0 } as SignedInOwner;
  beforeAll(async () => {
    ctx.server = await startServer();
  });
  afterAll(async () => {
    await ctx.server?.close();
  });
  beforeEach(async () => {
    ctx.n += 1;
    ({ user: ctx.user, session: ctx.session } = await signedInUser(ctx.server, name));
  });
  return ctx;
}
