import { useSeededServer } from '../../helpers/fixtures.js';

const t = useSeededServer();

const open = (body: unknown) =>
  fetch(`${t.server.url}/graphql/stream`, {
    method: 'POST',
    headers: {
      accept: 'text/event-stream',
      'content-type': 'application/json',
      authorization: `Bearer ${t.fx.tokens.organizerUser}`,
    },
    body: JSON.stringify(body),
  });

test.each([
  ['@include(if: false)', { query: 'subscription { changes @include(if: false) { cursor } }' }],
  [
    '@skip(if: $s)',
    { query: 'subscription($s: Boolean!) { changes @skip(if: $s) { cursor } }', variables: { s: true } },
  ],
  [
    'a skipped fragment',
    { query: 'subscription { ...F } fragment F on Subscription { changes @skip(if: true) { cursor } }' },
  ],
])('a subscription whose only root field is skipped (%s) gets a 4xx, never a 5xx', async (_name, body) => {
  const res = await open(body);
  const text = await res.text();
  expect({ status: res.status, text }).toEqual({ status: 400, text: expect.stringContaining('"code"') });
});

test('at /graphql too: a validation error, never a 5xx', async () => {
  const res = await fetch(`${t.server.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${t.fx.tokens.organizerUser}` },
    body: JSON.stringify({
      query: 'subscription($s: Boolean!) { changes @skip(if: $s) { cursor } }',
      variables: { s: true },
    }),
  });
  const body = (await res.json()) as { errors: { message: string; extensions: { code: string } }[] };
  expect(res.status).toBeLessThan(500);
  expect(body.errors[0]).toMatchObject({
    message: 'A subscription may not put @skip or @include on its root field.',
    extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
  });
});
