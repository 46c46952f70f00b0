import { useSeededServer } from '../../helpers/fixtures.js';
import { openStream, payloadOf } from '../../helpers/streams.js';

const t = useSeededServer();
const SQL_FAILURE =
  'select "id", "email", "password_hash" from "users" where "id" in (?) - SQLITE_IOERR: disk I/O error';

test('an internal error in a stream is masked as at /graphql: no SQL leaves the server, a request id instead', async () => {
  const users = t.server.services.users;
  const findByIds = users.findByIds.bind(users);
  const s = await openStream(t.server, t.fx.tokens.organizerUser, {
    query: 'subscription { changes { cursor registrant { name } } }',
  });
  // The database fails under the registrant lookup (a disk error, a lost connection): a resolver's internal error.
  users.findByIds = () => Promise.reject(new Error(SQL_FAILURE));
  try {
    await t.server.stores.registrations.create(t.fx.privateEvent.id, t.fx.registrants[2]!.id);
    const [event] = await s.next(1);
    s.close();
    const { errors } = payloadOf(event!);
    expect(errors).toEqual([
      expect.objectContaining({
        message: 'Internal server error',
        extensions: expect.objectContaining({ code: 'INTERNAL_SERVER_ERROR' }),
      }),
    ]);
  } finally {
    users.findByIds = findByIds;
  }
});

test('a failure where the stream starts is masked too', async () => {
  const changes = t.server.stores.changes;
  const bounds = changes.bounds.bind(changes);
  changes.bounds = () => Promise.reject(new Error('connect ECONNREFUSED 10.20.30.40:5432'));
  try {
    const s = await openStream(t.server, t.fx.tokens.organizerUser);
    const [event] = await s.next(1);
    s.close();
    expect(JSON.stringify(payloadOf(event!))).not.toContain('10.20.30.40');
  } finally {
    changes.bounds = bounds;
  }
});
