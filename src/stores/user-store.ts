import { newUid } from '../lib/ids.js';
import { chunks } from './chunks.js';
import type { Db } from './database.js';
import { keysetPage } from './keyset.js';
import { toUser } from './rows.js';
import { ACTIVE, type ActivationState, type Page, type UserRow } from './types.js';

/** A user's writable fields: on insert an absent one gets its default, on update it keeps its stored value. */
export interface UserFields {
  uid?: string;
  email?: string | null;
  emailVerified?: boolean;
  name?: string;
  picture?: string | null;
  zoneinfo?: string | null;
  passwordHash?: string | null;
  activationState?: ActivationState;
}

/** A new user's fields: everything optional but the name. */
export type NewUser = UserFields & { name: string };

/** What a user token's lookup needs of its user and its app. */
export interface TokenSubject {
  userId: number;
  activationState: ActivationState;
  appId: number;
  appName: string;
}

/** The one mapping of user fields to columns: the fields given, and nothing else. */
const userColumns = (u: UserFields) => ({
  ...(u.email !== undefined ? { email: u.email, email_normalized: u.email?.toLowerCase() ?? null } : {}),
  ...(u.emailVerified !== undefined ? { email_verified: u.emailVerified } : {}),
  ...(u.name !== undefined ? { name: u.name } : {}),
  ...(u.picture !== undefined ? { picture: u.picture } : {}),
  ...(u.zoneinfo !== undefined ? { zoneinfo: u.zoneinfo } : {}),
  ...(u.passwordHash !== undefined ? { password_hash: u.passwordHash } : {}),
  ...(u.activationState !== undefined ? { activation_state: u.activationState } : {}),
});

const newUserColumns = (u: NewUser, now: number) => ({
  email: null,
  email_normalized: null,
  email_verified: false,
  picture: null,
  zoneinfo: null,
  password_hash: null,
  activation_state: ACTIVE,
  ...userColumns(u),
  uid: u.uid ?? newUid(),
  created_at: now,
  updated_at: now,
});

/** True when updating the stored user with `u` would change it. */
export function userDiffers(row: UserRow, u: UserFields): boolean {
  return (
    (u.name !== undefined && row.name !== u.name) ||
    (u.email !== undefined && row.email !== u.email) ||
    (u.emailVerified !== undefined && row.emailVerified !== u.emailVerified) ||
    (u.picture !== undefined && row.picture !== u.picture) ||
    (u.zoneinfo !== undefined && row.zoneinfo !== u.zoneinfo) ||
    (u.passwordHash !== undefined && row.passwordHash !== u.passwordHash) ||
    (u.activationState !== undefined && row.activationState !== u.activationState)
  );
}

export class UserStore {
  constructor(private readonly db: Db) {}

  async findByIds(ids: readonly number[]): Promise<UserRow[]> {
    if (ids.length === 0) return [];
    return (await this.db('users').whereIn('id', ids)).map(toUser);
  }

  async findById(id: number): Promise<UserRow | undefined> {
    const row = await this.db('users').where({ id }).first();
    return row ? toUser(row) : undefined;
  }

  async findByUid(uid: string): Promise<UserRow | undefined> {
    const row = await this.db('users').where({ uid }).first();
    return row ? toUser(row) : undefined;
  }

  /**
   * The user and the app a user token names, in one statement; undefined when either is gone or the
   * app is suspended (its owner is not active).
   */
  async withApp(uid: string, clientId: string): Promise<TokenSubject | undefined> {
    const row = await this.db('users as u')
      .join('client_apps as a', (on) => on.onVal('a.client_id', clientId))
      .join('users as owner', 'owner.id', 'a.owner_id')
      .where('u.uid', uid)
      .andWhere('owner.activation_state', ACTIVE)
      .first('u.id as user_id', 'u.activation_state', 'a.id as app_id', 'a.name as app_name');
    if (!row) return undefined;
    return {
      userId: Number(row.user_id),
      activationState: row.activation_state as ActivationState,
      appId: Number(row.app_id),
      appName: String(row.app_name),
    };
  }

  async findByEmail(email: string): Promise<UserRow | undefined> {
    const row = await this.db('users').where({ email_normalized: email.toLowerCase() }).first();
    return row ? toUser(row) : undefined;
  }

  /** A user named by email (contains `@`) or by uid. */
  async findByKey(key: string): Promise<UserRow | undefined> {
    return key.includes('@') ? this.findByEmail(key) : this.findByUid(key);
  }

  /** Users named by uid or email, keyed by the same strings (emails lower-cased), a few statements for any number. */
  async findByKeys(keys: readonly string[]): Promise<Map<string, UserRow>> {
    const found = new Map<string, UserRow>();
    const emails = [...new Set(keys.filter((k) => k.includes('@')).map((k) => k.toLowerCase()))];
    const uids = [...new Set(keys.filter((k) => !k.includes('@')))];
    for (const part of chunks(emails)) {
      for (const r of await this.db('users').whereIn('email_normalized', part)) {
        found.set(String(r.email_normalized), toUser(r));
      }
    }
    for (const part of chunks(uids)) {
      for (const r of await this.db('users').whereIn('uid', part)) found.set(String(r.uid), toUser(r));
    }
    return found;
  }

  async create(user: NewUser, now = Date.now()): Promise<UserRow> {
    const [row] = await this.db('users').insert(newUserColumns(user, now)).returning('*');
    return toUser(row);
  }

  /** Inserts many users in batched statements, reading nothing back. */
  async insertMany(users: readonly NewUser[], now = Date.now()): Promise<void> {
    for (const part of chunks(users)) await this.db('users').insert(part.map((u) => newUserColumns(u, now)));
  }

  async update(id: number, user: UserFields, now = Date.now()): Promise<void> {
    await this.db('users')
      .where({ id })
      .update({ ...userColumns(user), updated_at: now });
  }

  async isEmpty(): Promise<boolean> {
    return (await this.db('users').first('id')) === undefined;
  }

  /**
   * Sets the user's activation state; the update bumps the auth epoch, so their tokens, and those of
   * their apps, stop (or work again) from the next request on at every instance.
   */
  async setActivationState(id: number, state: ActivationState, now = Date.now()): Promise<UserRow | undefined> {
    const [row] = await this.db('users')
      .where({ id })
      .update({ activation_state: state, updated_at: now })
      .returning('*');
    return row ? toUser(row) : undefined;
  }

  async setPasswordHash(id: number, passwordHash: string): Promise<void> {
    await this.db('users').where({ id }).update({ password_hash: passwordHash, updated_at: Date.now() });
  }

  /** Keyset page of users in creation (id) order, optionally of one activation state. */
  page(first: number, afterId: number | null, state?: ActivationState): Promise<Page<UserRow>> {
    const query = this.db('users').select('*');
    if (state) void query.where({ activation_state: state });
    return keysetPage(query, 'id', first, afterId, toUser);
  }

  /** Deletes the user; their apps (with app tokens), registrations, organizer links and account sessions cascade. */
  async delete(id: number): Promise<boolean> {
    return this.db.transaction(async (trx) => {
      // The events they organize lose an organizer with them: the change log hears of it through the event's row.
      const organized = trx('event_organizers').where({ user_id: id }).select('event_id');
      await trx('events').whereIn('id', organized).increment('organizers_version', 1);
      return (await trx('users').where({ id }).delete()) > 0;
    });
  }
}
