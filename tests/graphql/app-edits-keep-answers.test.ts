import { useSeededServer } from '../helpers/fixtures.js';
import { gql, SEED_QUERY } from '../helpers/graphql.js';
import { capturedLog } from '../helpers/log-lines.js';
import { askReplayed } from '../helpers/replays.js';

// Registering, renaming or re-pointing an app changes no answer about events, so it must not empty every
// instance's replay cache (any user could otherwise do it at will). The one answer that shows an app's
// name, `viewer { app { name } }`, still changes with it.
// A computed answer may run no statement (its event and page kept at the same epochs): the request's log line
// says whether it was replayed.
const { logger, lines: logged } = capturedLog();
const t = useSeededServer({ RATE_LIMIT_POINTS: '100000' }, { logger });
const VARS = { slug: 'public-meetup' };

async function expectReplayed(token: string, query: string, variables?: Record<string, unknown>) {
  const first = await gql(t.server, token, query, variables);
  expect(first.status).toBe(200);
  const again = await askReplayed(logged, () => gql(t.server, token, query, variables));
  expect(again.replayed).toBe(true);
  expect(again.result.text).toBe(first.text);
}

test('registering, renaming and editing apps leaves replayed answers in place', async () => {
  const token = t.fx.tokens.organizerUser;
  await gql(t.server, token, SEED_QUERY, VARS);
  const { apps } = t.server.stores;
  const made = await apps.create({
    ownerId: t.fx.other.id,
    name: 'Another App',
    redirectUris: ['https://a.example/cb'],
  });
  await apps.update(made.app.id, { name: 'Renamed App', redirectUris: ['https://b.example/cb'] });
  await apps.update(made.app.id, { name: 'Renamed Again' });
  const replay = await askReplayed(logged, () => gql(t.server, token, SEED_QUERY, VARS));
  expect(replay.replayed).toBe(true);
  expect(replay.result.text).toContain('ann@example.com');
});

test.each(['organizerUser', 'organizerApp'] as const)(
  "the %s token's own app renamed: viewer.app.name answers the new name at once",
  async (name) => {
    const token = t.fx.tokens[name];
    const query = '{ viewer { app { clientId name } } }';
    await expectReplayed(token, query);
    const app = (await t.server.stores.apps.findByClientId(t.fx.orgApp.clientId))!;
    const renamed = `Badge Printer ${name}`;
    await t.server.stores.apps.update(app.id, { name: renamed });
    const after = await gql(t.server, token, query);
    expect(after.body.data).toEqual({ viewer: { app: { clientId: t.fx.orgApp.clientId, name: renamed } } });
  },
);

test('a write an answer can show still ends the replay', async () => {
  const token = t.fx.tokens.organizerUser;
  await expectReplayed(token, SEED_QUERY, VARS);
  await t.server.stores.users.update(t.fx.registrants[0]!.id, { name: 'Ann Renamed' });
  const after = await gql(t.server, token, SEED_QUERY, VARS);
  expect(after.text).toContain('Ann Renamed');
});
