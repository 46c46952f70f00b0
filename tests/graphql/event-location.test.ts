import { cli } from '../helpers/cli.js';
import { useSeededServer } from '../helpers/fixtures.js';
import { gql } from '../helpers/graphql.js';

// Event.location: what the operator set, null when unset, under the usual visibility rules.
const t = useSeededServer();

const LOCATION = 'query($slug: String!) { event(slug: $slug) { slug location } }';
const setLocation = (slug: string, ...option: string[]) =>
  cli(t.server.config.databaseUrl, ['event', 'update', '--event', slug, ...option]);

test('null while unset, then what the CLI set, at once (the next request sees the write)', async () => {
  const before = await gql(t.server, t.fx.tokens.otherUser, LOCATION, { slug: 'public-meetup' });
  expect(before.body).toEqual({ data: { event: { slug: 'public-meetup', location: null } } });

  expect((await setLocation('public-meetup', '--location', 'Hall B, Berlin')).code).toBe(0);
  const after = await gql(t.server, t.fx.tokens.otherUser, LOCATION, { slug: 'public-meetup' });
  expect(after.body).toEqual({ data: { event: { slug: 'public-meetup', location: 'Hall B, Berlin' } } });
});

test('a private event shows its location to its organizers only', async () => {
  expect((await setLocation('private-retreat', '--location', 'Cabin 3, Lake Tahoe')).code).toBe(0);
  for (const token of [t.fx.tokens.organizerUser, t.fx.tokens.organizerApp]) {
    const res = await gql(t.server, token, LOCATION, { slug: 'private-retreat' });
    expect(res.body).toEqual({ data: { event: { slug: 'private-retreat', location: 'Cabin 3, Lake Tahoe' } } });
  }
  const other = await gql(t.server, t.fx.tokens.otherUser, LOCATION, { slug: 'private-retreat' });
  expect(other.body).toEqual({ data: { event: null } });
});

test('the events connection carries it too, and a cleared location reads null again', async () => {
  expect((await setLocation('public-meetup', '--no-location')).code).toBe(0);
  const res = await gql(t.server, t.fx.tokens.organizerUser, '{ events { nodes { slug location } } }');
  expect(res.body).toEqual({
    data: {
      events: {
        nodes: [
          { slug: 'public-meetup', location: null },
          { slug: 'private-retreat', location: 'Cabin 3, Lake Tahoe' },
        ],
      },
    },
  });
});

test('the schema describes it as a nullable String', async () => {
  const res = await gql(
    t.server,
    t.fx.tokens.otherUser,
    '{ __type(name: "Event") { fields { name description type { kind name } } } }',
  );
  const fields = (res.body.data!.__type as { fields: { name: string; description: string; type: object }[] }).fields;
  expect(fields.find((f) => f.name === 'location')).toEqual({
    name: 'location',
    description: expect.stringContaining('Where the event takes place'),
    type: { kind: 'SCALAR', name: 'String' },
  });
});
