import { useSeededServer } from '../../helpers/fixtures.js';
import { SUBSCRIBE } from '../../helpers/streams.js';
import { holdStream } from '../../helpers/held-stream.js';

const t = useSeededServer();

test('a token revoked while its stream request is in flight gets no stream, and no change after', async () => {
  const { stores } = t.server;
  const made = await stores.apps.create({
    ownerId: t.fx.organizer.id,
    name: 'Soon rotated',
    redirectUris: ['http://localhost:3000/callback'],
  });
  const held = holdStream(t.server.url, made.appToken, JSON.stringify({ query: SUBSCRIBE }));
  await held.started;
  await new Promise((r) => setTimeout(r, 300)); // the bearer check has run; the body is not sent yet

  await stores.apps.rotateAppToken(made.app.id); // the old token stops working at once (§1)
  const now = await fetch(`${t.server.url}/graphql`, {
    method: 'POST',
    headers: { authorization: `Bearer ${made.appToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ query: '{ viewer { tokenKind } }' }),
  });
  expect(now.status).toBe(401); // /graphql refuses it now

  held.release();
  const status = await held.status;
  await new Promise((r) => setTimeout(r, 300));
  await stores.registrations.create(t.fx.privateEvent.id, t.fx.registrants[1]!.id);
  const leaked = await held.waitFor('REGISTRATION_CREATED', 3000).then(
    () => true,
    () => false,
  );
  held.close();
  // Refused (401), or ended before any data: never a change read with the revoked token.
  expect({ status, changeShownToRevokedToken: leaked }).toEqual({ status, changeShownToRevokedToken: false });
});
