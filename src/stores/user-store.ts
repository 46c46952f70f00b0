import { newUid } from '../lib/ids.js';
import type { Db } from './knex.js';
import { toUser } from './rows.js';
import type { ActivationState, UserRow } from './types.js';

export interface NewUser {
  uid?: string;
  email: string | null;
  emailVerified?: boolean;
  name: string;
  picture?: string | null;
  zoneinfo?: string | null;
  passwordHash?: string | null;
  activationState?: ActivationState;
}

/** What a user token's lookup needs of its user and its app. */
export interface TokenSubject {
  userId: number;
  activationState: ActivationState;
  appId: number;
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
      .andWhere('owner.activation_state', 'active')
      .first('u.id as user_id', 'u.activation_state', 'a.id as app_id');
    if (!row) return undefined;
    return {
      userId: Number(row.user_id),
      activationState: row.activation_state as ActivationState,
      appId: Number(row.app_id),
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

  async create(user: NewUser, now = Date.now()): Promise<UserRow> {
    const [row] = await this.db('users')
      .insert({
        uid: user.uid ?? newUid(),
        email: user.email,
        email_normalized: user.email?.toLowerCase() ?? null,
        email_verified: user.emailVerified ?? false,
        name: user.name,
        picture: user.picture ?? null,
        zoneinfo: user.zoneinfo ?? null,
        password_hash: user.passwordHash ?? null,
        activation_state: user.activationState ?? 'active',
        created_at: now,
        updated_at: now,
      })
      .returning('*');
    return toUser(row);
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
}
