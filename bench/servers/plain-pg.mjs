// The plain peer's data access on PostgreSQL: a pg Pool, one statement per page.
import pg from 'pg';

const USER_TOKEN = `
  SELECT u.id AS "userId", least(t.expires_at, g.expires_at) AS "expiresAt"
  FROM oidc_payloads t
  JOIN oidc_payloads g ON g.model = 'Grant' AND g.id = t.grant_id
    AND g.account_id = t.account_id AND g.client_id = t.client_id
  JOIN users u ON u.uid = t.account_id AND u.activation_state = 'active'
  JOIN client_apps a ON a.client_id = t.client_id
  JOIN users owner ON owner.id = a.owner_id AND owner.activation_state = 'active'
  WHERE t.model = 'AccessToken' AND t.id = $1 AND (t.expires_at IS NULL OR t.expires_at > $2)
    AND (g.expires_at IS NULL OR g.expires_at > $2)`;
const APP_TOKEN = `
  SELECT a.owner_id AS "ownerId" FROM app_tokens k
  JOIN client_apps a ON a.id = k.app_id
  JOIN users owner ON owner.id = a.owner_id AND owner.activation_state = 'active'
  WHERE k.token_hash = $1`;
const EVENT = `
  SELECT e.id, e.visibility,
    EXISTS (SELECT 1 FROM event_organizers o WHERE o.event_id = e.id AND o.user_id = $1) AS organizer
  FROM events e WHERE e.slug = $2`;
const PAGE = `
  SELECT u.name, u.email, u.activation_state AS "activationState"
  FROM registrations r JOIN users u ON u.id = r.user_id
  WHERE r.event_id = $1 ORDER BY r.id LIMIT $2`;

export function openData(databaseUrl) {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 10 });
  // Named statements: each connection of the pool prepares them once.
  const one = async (name, text, values) => (await pool.query({ name, text, values })).rows;
  return {
    /** The two statements of a computed answer, as they are sent (a traced peer names its spans with them). */
    statements: { event: EVENT, page: PAGE },
    async userToken(hash, now) {
      const [row] = await one('user_token', USER_TOKEN, [hash, now]);
      return (
        row && { viewer: { kind: 'user', actingUserId: row.userId }, expiresAt: row.expiresAt && Number(row.expiresAt) }
      );
    },
    async appToken(hash) {
      const [row] = await one('app_token', APP_TOKEN, [hash]);
      return row && { viewer: { kind: 'app', actingUserId: row.ownerId } };
    },
    event: async (slug, userId) => (await one('event', EVENT, [userId, slug]))[0],
    page: (eventId, first) => one('page', PAGE, [eventId, first]),
  };
}
