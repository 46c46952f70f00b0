import { once } from 'node:events';
import { finished } from 'node:stream/promises';
import type { Knex } from 'knex';
import type { ClientBase } from 'pg';
import { from as copyFrom, type CopyStreamQuery } from 'pg-copy-streams';
import type { Db } from './database.js';

/** A staged registration whose event or user the database does not hold. */
export interface UnresolvedRegistration {
  line: number;
  event: string;
  user: string;
  /** Which reference failed first: the event is looked at before the user. */
  missing: 'event' | 'user';
}

const TABLE = 'registration_import';
/** Bytes of COPY text sent per write: few round trips through the stream, little held in memory. */
const CHUNK_BYTES = 1 << 16;

/** COPY's text format: backslash, tab and line breaks escaped; U+0000 as U+FFFD, as knex.ts binds it. */
const copyText = (s: string) =>
  s.replace(/[\\\t\n\r\0]/g, (c) =>
    c === '\\' ? '\\\\' : c === '\t' ? '\\t' : c === '\n' ? '\\n' : c === '\r' ? '\\r' : '\ufffd',
  );

// Staged rows joined to the events and users they name: a user key with `@` is an email (case-insensitive).
const RESOLVED = `FROM ${TABLE} s
  LEFT JOIN events e ON e.slug = s.event
  LEFT JOIN users u ON u.uid = s.uid
  LEFT JOIN users m ON m.email_normalized = s.email`;

/**
 * PostgreSQL: a run of imported registrations streamed by COPY into a temporary table (dropped at commit or
 * rollback), checked and applied with one statement each, so a million rows cost a handful of round trips.
 * Must be used inside a transaction: it writes on that transaction's connection.
 */
export class RegistrationStaging {
  private copy: CopyStreamQuery | undefined;
  private copyError: Error | undefined;
  private buffer = '';
  private created = false;
  /** Registrations staged since the last apply. */
  size = 0;

  constructor(
    private readonly trx: Db,
    private readonly now: number,
  ) {}

  /** Stages one registration; waits when PostgreSQL is behind, so memory stays flat. */
  async add(line: number, event: string, user: string): Promise<void> {
    if (!this.copy) await this.startCopy();
    const email = user.includes('@') ? user.toLowerCase() : null;
    const key = copyText(user);
    this.buffer += `${line}\t${copyText(event)}\t${key}\t${email === null ? key : '\\N'}\t${email === null ? '\\N' : copyText(email)}\n`;
    this.size += 1;
    if (this.buffer.length >= CHUNK_BYTES) await this.send();
  }

  /** Ends the COPY; then the first `limit` staged rows (by line) naming an unknown event or user, and how many. */
  async unresolved(limit: number): Promise<{ first: UnresolvedRegistration[]; count: number }> {
    await this.endCopy();
    const { rows } = await this.trx.raw<{ rows: Record<string, unknown>[] }>(
      `SELECT s.line, s.event, s.user_key, e.id IS NULL AS no_event, count(*) OVER () AS n ${RESOLVED}
       WHERE e.id IS NULL OR (u.id IS NULL AND m.id IS NULL) ORDER BY s.line LIMIT ?`,
      [limit],
    );
    return {
      first: rows.map((r) => ({
        line: Number(r.line),
        event: String(r.event),
        user: String(r.user_key),
        missing: r.no_event ? 'event' : 'user',
      })),
      count: rows.length === 0 ? 0 : Number(rows[0]!.n),
    };
  }

  /**
   * Inserts the resolvable staged registrations in line order (ids follow the file), leaving existing
   * (event, user) pairs as they are. The next run empties the stage first.
   */
  async apply(): Promise<void> {
    await this.endCopy();
    await this.trx.raw(
      `INSERT INTO registrations (event_id, user_id, created_at)
       SELECT e.id, coalesce(u.id, m.id), ? ${RESOLVED}
       WHERE e.id IS NOT NULL AND coalesce(u.id, m.id) IS NOT NULL ORDER BY s.line
       ON CONFLICT (event_id, user_id) DO NOTHING`,
      [this.now],
    );
    this.size = 0;
  }

  /** Cancels a COPY under way (PostgreSQL discards it), so the transaction can roll back. */
  abort(): void {
    this.copy?.destroy();
    this.copy = undefined;
  }

  private async startCopy(): Promise<void> {
    if (this.created) {
      await this.trx.raw(`TRUNCATE ${TABLE}`);
    } else {
      await this.trx.raw(
        `CREATE TEMPORARY TABLE ${TABLE} (line integer NOT NULL, event text NOT NULL, user_key text NOT NULL,
         uid text, email text) ON COMMIT DROP`,
      );
      this.created = true;
    }
    // Inside a transaction knex hands out the transaction's own connection.
    const conn = (await (this.trx.client as Knex.Client).acquireConnection()) as ClientBase;
    const copy = conn.query(copyFrom(`COPY ${TABLE} (line, event, user_key, uid, email) FROM STDIN`));
    copy.on('error', (err: Error) => (this.copyError = err));
    this.copy = copy;
  }

  private async send(): Promise<void> {
    const chunk = this.buffer;
    this.buffer = '';
    if (this.copyError) throw this.copyError;
    if (!this.copy!.write(chunk)) await once(this.copy!, 'drain');
  }

  private async endCopy(): Promise<void> {
    if (!this.copy) return;
    if (this.buffer) await this.send();
    const copy = this.copy;
    this.copy = undefined;
    copy.end();
    await finished(copy);
  }
}
