import type { Jar } from './sign-in-forms.js';
import { ANSWER_MS } from '../helpers/timing.js';

// Hostile bodies for every route that takes one (request-bodies and identity-forms send them): each
// answer is a 4xx with a one-line reason and a code, never a 5xx.
const FORM = 'application/x-www-form-urlencoded';

export interface Hostile {
  name: string;
  type?: string;
  body?: (csrf: string) => string | Buffer;
}

const form = (fields: string) => (csrf: string) => `_csrf=${encodeURIComponent(csrf)}&${fields}`;

export const HOSTILE: Hostile[] = [
  { name: 'a JSON body', type: 'application/json', body: (c) => JSON.stringify({ _csrf: c, email: 'a@b.c' }) },
  { name: 'no body at all' },
  { name: 'an empty form', type: FORM, body: () => '' },
  { name: 'a form sent as text/plain', type: 'text/plain', body: form('email=a%40b.c&password=x') },
  { name: 'a form in latin1', type: `${FORM}; charset=latin1`, body: form('email=a%40b.c') },
  { name: 'a form with a gzip encoding it lacks', type: FORM, body: form('email=x') },
  {
    name: 'every field repeated',
    type: FORM,
    body: form(
      'email=a&email=b&password=x&password=y&name=n&name=m&redirect_uris=a&redirect_uris=b&type=x&type=y&scope=a&decision=allow&decision=deny',
    ),
  },
  {
    name: 'bracketed fields',
    type: FORM,
    body: form('email[x]=a&password[]=b&name[a][b]=c&redirect_uris[0]=d&decision[]=allow'),
  },
  { name: 'values of 15 kB', type: FORM, body: form(`email=${'a'.repeat(15_000)}&password=p&name=${'n'.repeat(300)}`) },
  { name: 'a body over the limit', type: FORM, body: form(`email=${'a'.repeat(40_000)}`) },
  { name: 'too many fields', type: FORM, body: form(Array.from({ length: 40 }, (_, i) => `f${i}=x`).join('&')) },
  { name: 'bad percent-encoding', type: FORM, body: form('email=%ZZ%&password=%ff%fe&name=%c3%28') },
  {
    name: 'raw bytes that are not UTF-8',
    type: FORM,
    body: (c) =>
      Buffer.concat([
        Buffer.from(`_csrf=${c}&email=`),
        Buffer.from([0xff, 0xfe, 0xc3, 0x28]),
        Buffer.from('&password=x'),
      ]),
  },
  { name: 'a NUL and control characters', type: FORM, body: form('email=a%00b%01c&password=%00&name=%00') },
];

export interface Answer {
  status: number;
  type: string;
  text: string;
  ms: number;
}

/** POSTs a hostile body to `url`, with the cookies and CSRF token of `ctx` when given. */
export async function send(
  url: string,
  h: Hostile,
  ctx: { jar?: Jar; csrf?: string } = {},
  extra: Record<string, string> = {},
): Promise<Answer> {
  const headers: Record<string, string> = { ...extra };
  if (ctx.jar) headers.Cookie = ctx.jar.header();
  if (h.type !== undefined) headers['Content-Type'] = h.type;
  if (h.name.includes('gzip')) headers['Content-Encoding'] = 'gzip';
  const started = Date.now();
  const res = await fetch(url, { method: 'POST', redirect: 'manual', headers, body: h.body?.(ctx.csrf ?? '') });
  return {
    status: res.status,
    type: res.headers.get('content-type') ?? '',
    text: await res.text(),
    ms: Date.now() - started,
  };
}

/** A page's answer: success, or a 4xx page saying why (the form with an alert, or our error page). */
export function expectPageAnswer(what: string, a: Answer): void {
  expect({ what, status: a.status < 500, fast: a.ms < ANSWER_MS }).toEqual({ what, status: true, fast: true });
  if (a.status < 400) return; // done: a form that needs no field (rotate a secret) ignores the junk
  expect(a.type).toBe('text/html; charset=utf-8');
  const reason = /role="alert">([^<]*)</.exec(a.text)?.[1] ?? /Error: <code>([A-Za-z_]+)<\/code>/.exec(a.text)?.[1];
  expect({ what, reason: reason?.length ? 'given' : a.text.slice(0, 300) }).toEqual({ what, reason: 'given' });
}

/** An API's answer: ours (`errors[0].message` and `.extensions.code`) or OAuth's (`error`, `error_description`). */
export function expectApiAnswer(what: string, a: Answer): void {
  expect({ what, status: a.status < 500, fast: a.ms < ANSWER_MS }).toEqual({ what, status: true, fast: true });
  if (a.status < 400) return;
  expect(a.type).toMatch(/^application\/json/);
  const body = JSON.parse(a.text) as {
    errors?: { message: string; extensions: { code: string } }[];
    error?: string;
    error_description?: string;
  };
  const reason = body.errors?.[0]?.message ?? body.error_description;
  const code = body.errors?.[0]?.extensions.code ?? body.error;
  expect({ what, reason: /^[^\n]+$/.test(reason ?? ''), code: /^[a-zA-Z_]+$/.test(code ?? '') }).toEqual({
    what,
    reason: true,
    code: true,
  });
}
