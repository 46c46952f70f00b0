import { changeFeed } from '../helpers/changes.js';
import { useSeededServer } from '../helpers/fixtures.js';

// A change's registrant is shown as the registrations show them now: an organizer who saw an address while
// someone was registered does not learn the one they take after leaving.
const t = useSeededServer();
const { feed, head } = changeFeed(t);

test('after a registrant leaves, their new email is not shown on their old changes', async () => {
  const h = await head();
  const { stores } = t.server;
  const leaver = await stores.users.create({ email: 'leaver@example.com', name: 'Leaver' });
  await stores.registrations.create(t.fx.publicEvent.id, leaver.id);
  const whileRegistered = await feed('organizerUser', { after: h });
  expect(whileRegistered.nodes.map((n) => n.registrant)).toEqual([{ name: 'Leaver', email: 'leaver@example.com' }]);

  await stores.registrations.delete(t.fx.publicEvent.id, leaver.id);
  await stores.users.update(leaver.id, { email: 'new-secret@example.com' });
  const after = await feed('organizerUser', { after: h });
  expect(after.nodes.map((n) => n.type)).toEqual(['REGISTRATION_CREATED', 'REGISTRATION_DELETED']);
  expect(after.text).not.toContain('new-secret@example.com');
  expect(after.nodes.map((n) => n.registrant?.email ?? null)).toEqual([null, null]);
});
