// The plain peer's data access on SQLite: better-sqlite3 statements prepared once, one join per page.
import Database from 'better-sqlite3';

export function openData(databaseUrl) {
  const db = new Database(databaseUrl.replace(/^sqlite:/, ''));
  const userToken = db.prepare(`
    SELECT u.id AS userId, min(coalesce(t.expires_at, 9e15), coalesce(g.expires_at, 9e15)) AS expiresAt
    FROM oidc_payloads t
    JOIN oidc_payloads g ON g.model = 'Grant' AND g.id = t.grant_id
      AND g.account_id = t.account_id AND g.client_id = t.client_id
    JOIN users u ON u.uid = t.account_id AND u.activation_state = 'active'
    JOIN client_apps a ON a.client_id = t.client_id
    JOIN users owner ON owner.id = a.owner_id AND owner.activation_state = 'active'
    WHERE t.model = 'AccessToken' AND t.id = ? AND (t.expires_at IS NULL OR t.expires_at > ?)
      AND (g.expires_at IS NULL OR g.expires_at > ?)`);
  const appToken = db.prepare(`
    SELECT a.owner_id AS ownerId FROM app_tokens k
    JOIN client_apps a ON a.id = k.app_id
    JOIN users owner ON owner.id = a.owner_id AND owner.activation_state = 'active'
    WHERE k.token_hash = ?`);
  const statements = {
    event: `
    SELECT e.id, e.visibility,
      EXISTS (SELECT 1 FROM event_organizers o WHERE o.event_id = e.id AND o.user_id = ?) AS organizer
    FROM events e WHERE e.slug = ?`,
    page: `
    SELECT u.name, u.email, u.activation_state AS activationState
    FROM registrations r JOIN users u ON u.id = r.user_id
    WHERE r.event_id = ? ORDER BY r.id LIMIT ?`,
  };
  const event = db.prepare(statements.event);
  const page = db.prepare(statements.page);
  return {
    /** The two statements of a computed answer (a traced peer names its spans with them). */
    statements,
    userToken(hash, now) {
      const row = userToken.get(hash, now, now);
      return row && { viewer: { kind: 'user', actingUserId: row.userId }, expiresAt: row.expiresAt };
    },
    appToken(hash) {
      const row = appToken.get(hash);
      return row && { viewer: { kind: 'app', actingUserId: row.ownerId } };
    },
    event: (slug, userId) => event.get(userId, slug),
    page: (eventId, first) => page.all(eventId, first),
  };
}
