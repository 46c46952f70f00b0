import { useSeededServer } from '../helpers/fixtures.js';
import { SEED_QUERY } from '../helpers/graphql.js';
import { ANSWER_MS } from '../helpers/timing.js';

// JSON nested past any real use is refused where it is read, before anything walks it (the replay key,
// variable coercion, logs): a 400 with a one-line reason and a code, never a 500, and it costs nothing.
const t = useSeededServer();
type ErrorBody = { errors: { message: string; extensions: { code: string } }[] };

const nested = (depth: number, open = '[', close = ']') => open.repeat(depth) + close.repeat(depth);
const nestedObjects = (depth: number) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);

const post = (body: string) =>
  fetch(`${t.server.url}/graphql`, {
    method: 'POST',
    headers: {
      Authorization: `Bearer ${t.fx.tokens.organizerUser}`,
      'Content-Type': 'application/json',
      Accept: 'application/json',
    },
    body,
    signal: AbortSignal.timeout(ANSWER_MS),
  });

async function expectTooDeep(res: Response) {
  expect(res.status).toBe(400);
  const body = (await res.json()) as ErrorBody;
  expect(body.errors).toHaveLength(1);
  expect(body.errors[0]!.extensions.code).toBe('BAD_REQUEST');
  expect(body.errors[0]!.message).toMatch(/^The request body nests JSON deeper than \d+ levels\.$/);
}

afterEach(async () => {
  const res = await post(JSON.stringify({ query: SEED_QUERY, variables: { slug: 'public-meetup' } }));
  expect(res.status).toBe(200);
});

test.each([
  ['variables', (d: number) => `{"query":"{ viewer { tokenKind } }","variables":{"v":${nested(d)}}}`],
  ['extensions', (d: number) => `{"query":"{ viewer { tokenKind } }","extensions":{"e":${nested(d)}}}`],
  ['objects in variables', (d: number) => `{"query":"{ viewer { tokenKind } }","variables":${nestedObjects(d)}}`],
  ['the body itself', (d: number) => nested(d)],
])('15,000 levels of %s: 400 before anything reads it', async (_where, body) => {
  await expectTooDeep(await post(body(15_000)));
});

test('the limit is exact: 64 levels are read, 65 are refused', async () => {
  const within = await post(`{"query":"{ viewer { tokenKind } }","extensions":{"e":${nested(62)}}}`);
  expect(within.status).toBe(200);
  await expectTooDeep(await post(`{"query":"{ viewer { tokenKind } }","extensions":{"e":${nested(63)}}}`));
});

test('brackets inside strings (escaped quotes included) do not count', async () => {
  const text = `\\"${'['.repeat(5000)}`;
  const res = await post(JSON.stringify({ query: SEED_QUERY, variables: { slug: text } }));
  expect(res.status).toBe(200);
  expect(((await res.json()) as { data: { event: null } }).data.event).toBeNull();
});

test.each(['variables', 'extensions'])('a GET with %s nested 1,000 levels deep: 400', async (param) => {
  const url = new URL(`${t.server.url}/graphql`);
  url.searchParams.set('query', '{ viewer { tokenKind } }');
  url.searchParams.set(param, `{"v":${nested(1000)}}`);
  const res = await fetch(url, {
    headers: { Authorization: `Bearer ${t.fx.tokens.organizerUser}`, Accept: 'application/json' },
    signal: AbortSignal.timeout(ANSWER_MS),
  });
  await expectTooDeep(res);
});

test.each(['utf-7', 'utf-16le', 'UTF-16', 'latin1'])(
  'a body declared as %s is refused with 415 before it is decoded past the depth check',
  async (charset) => {
    // In UTF-7 every bracket is spelled with letters: a byte scan would count none of them.
    const utf7Brackets = `+${Buffer.from('['.repeat(15_000), 'utf16le').swap16().toString('base64').replace(/=+$/, '')}-`;
    const res = await fetch(`${t.server.url}/graphql`, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${t.fx.tokens.organizerUser}`,
        'Content-Type': `application/json; charset=${charset}`,
        Accept: 'application/json',
      },
      body: `{"query":"{ viewer { tokenKind } }","extensions":{"v":${utf7Brackets}${']'.repeat(15_000)}}}`,
      signal: AbortSignal.timeout(ANSWER_MS),
    });
    expect(res.status).toBe(415);
    expect(((await res.json()) as ErrorBody).errors[0]!.extensions.code).toBe('UNSUPPORTED_MEDIA_TYPE');
  },
);

test('a GET cannot hide deep variables behind a thousand other parameters', async () => {
  const junk = Array.from({ length: 1200 }, () => 'a').join('&');
  const query = encodeURIComponent('{ viewer { tokenKind } }');
  const url = `${t.server.url}/graphql?${junk}&query=${query}&extensions=${encodeURIComponent(`{"v":${nested(500)}}`)}`;
  const res = await fetch(url, {
    headers: { Authorization: `Bearer ${t.fx.tokens.organizerUser}`, Accept: 'application/json' },
    signal: AbortSignal.timeout(ANSWER_MS),
  });
  await expectTooDeep(res);
});
