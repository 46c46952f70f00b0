import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import * as oidc from 'openid-client';

/** The cookies one client holds: enough of a jar for our forms (names are unique per test). */
export class Jar {
  private readonly cookies = new Map<string, string>();

  absorb(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const at = pair!.indexOf('=');
      this.cookies.set(pair!.slice(0, at).trim(), pair!.slice(at + 1));
    }
  }

  header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }
}

/** A sign-in form ready to be posted many times: its action, CSRF field and the cookies that go with it. */
export interface SignInForm {
  action: string;
  post(email: string, password: string, headers?: Record<string, string>): Promise<Response>;
  /** The same form (same cookies and CSRF field) posted to another instance. */
  on(origin: string): SignInForm;
}

/** The CSRF field of a page's form. */
export const csrfOf = (html: string): string => {
  const found = /name="_csrf" value="([^"]+)"/.exec(html);
  if (!found) throw new Error(`no CSRF field in ${html.slice(0, 300)}`);
  return found[1]!;
};

function formFor(action: string, jar: Jar, csrf: string, headers: Record<string, string>): SignInForm {
  return {
    action,
    on: (origin) => formFor(origin + new URL(action).pathname, jar, csrf, headers),
    post: (email, password, extra = {}) =>
      fetch(action, {
        method: 'POST',
        redirect: 'manual',
        headers: { ...headers, ...extra, Cookie: jar.header(), 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ _csrf: csrf, email, password }),
      }),
  };
}

/** The account pages' sign-in form (/account/login). */
export async function accountForm(url: string, headers: Record<string, string> = {}): Promise<SignInForm> {
  const jar = new Jar();
  const page = await fetch(`${url}/account`, { headers });
  jar.absorb(page);
  return formFor(`${url}/account/login`, jar, csrfOf(await page.text()), headers);
}

/** An authorization request's login page (/interaction/:uid/login), opened at `url`. */
export async function interactionForm(
  url: string,
  client: { clientId: string; redirectUri: string },
  options: { headers?: Record<string, string> } = {},
): Promise<SignInForm & { jar: Jar; uid: string }> {
  const headers = options.headers ?? {};
  const jar = new Jar();
  const auth = await fetch(`${url}/auth?${authorizationParams(client)}`, { redirect: 'manual', headers });
  jar.absorb(auth);
  const location = auth.headers.get('location');
  if (auth.status !== 303 || !location) throw new Error(`/auth answered ${auth.status}: ${await auth.text()}`);
  const path = new URL(location, url).pathname;
  const page = await fetch(`${url}${path}`, { headers: { ...headers, Cookie: jar.header() } });
  jar.absorb(page);
  const uid = path.split('/').pop()!;
  return { ...formFor(`${url}${path}/login`, jar, csrfOf(await page.text()), headers), jar, uid };
}

/** A code-flow authorization request with PKCE, as query parameters. */
export function authorizationParams(client: { clientId: string; redirectUri: string }): URLSearchParams {
  return new URLSearchParams({
    client_id: client.clientId,
    redirect_uri: client.redirectUri,
    response_type: 'code',
    scope: 'openid',
    state: oidc.randomState(),
    code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    code_challenge_method: 'S256',
  });
}

/** Counts answers by status: { 401: 10, 429: 50 }. */
export function tally(responses: Response[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const r of responses) counts[r.status] = (counts[r.status] ?? 0) + 1;
  return counts;
}

/** A raw HTTP/1.1 request, for the headers fetch will not send (Host) and absolute-form targets. */
export function rawRequest(
  url: string,
  target: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; headers: IncomingHttpHeaders; body: string }> {
  const { hostname, port } = new URL(url);
  const { method = 'GET', headers = {}, body } = options;
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: hostname, port, path: target, method, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}
