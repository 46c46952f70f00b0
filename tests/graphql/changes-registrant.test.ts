import { changeFeed } from '../helpers/changes.js';
import { addRegistrants, useSeededServer } from '../helpers/fixtures.js';
import { forgetCachedAnswers, sqlDuring } from '../helpers/sql.js';

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

test('a page of registration changes reads the registrants’ registrations in one statement, not one per change', async () => {
  const h = await head();
  await addRegistrants(t.server, t.fx.publicEvent.id, 60, { prefix: 'batch', name: 'Batch' });
  await forgetCachedAnswers(t.server.db);
  const { result, sql } = await sqlDuring(t.server.db, () => feed('organizerUser', { after: h, first: 100 }));
  expect(result.nodes).toHaveLength(60);
  expect(result.nodes.every((n) => n.registrant?.email?.startsWith('batch'))).toBe(true);
  const registrationsOfUsers = sql.filter((s) => /from [`"]registrations[`"] where [`"]user_id[`"] (in|=)/i.test(s));
  expect(registrationsOfUsers).toHaveLength(1);
  expect(sql.length).toBeLessThan(20);
});
