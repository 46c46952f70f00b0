import type { Knex } from 'knex';
import { isSqlite } from './dialect.js';
import { APP_TOKEN_PREFIX, CLIENT_SECRET_PREFIX, newClientId } from '../lib/ids.js';
import { randomToken, sha256 } from '../lib/secrets.js';
import type { Db } from './database.js';
import { keysetPage } from './keyset.js';
import { toClientApp } from './rows.js';
import { ACTIVE, type ClientAppRow, type Page } from './types.js';

export interface NewClientApp {
  ownerId: number;
  name: string;
  redirectUris: string[];
  /** A public client has no secret and must use PKCE. */
  confidential?: boolean;
  clientId?: string;
}

export interface CreatedClientApp {
  app: ClientAppRow;
  clientSecret: string | null;
  appToken: string;
}

/** Thrown to roll back an insert that took the owner past the cap. */
class OverTheCap extends Error {}

async function ownedCount(trx: Knex.Transaction, ownerId: number): Promise<number> {
  const row = await trx('client_apps').where({ owner_id: ownerId }).count({ n: '*' }).first();
  return Number(row?.n ?? 0);
}

export class AppStore {
  constructor(private readonly db: Db) {}

  async findByClientId(clientId: string): Promise<ClientAppRow | undefined> {
    const row = await this.db('client_apps').where({ client_id: clientId }).first();
    return row ? toClientApp(row) : undefined;
  }

  /** The app an app token belongs to, by the token's hash; none while the app is suspended (owner inactive). */
  async findByAppToken(token: string): Promise<ClientAppRow | undefined> {
    const row = await this.db('app_tokens')
      .join('client_apps', 'client_apps.id', 'app_tokens.app_id')
      .join('users', 'users.id', 'client_apps.owner_id')
      .where('app_tokens.token_hash', sha256(token))
      .andWhere('users.activation_state', ACTIVE)
      .first('client_apps.*');
    return row ? toClientApp(row) : undefined;
  }

  /** The app as an OAuth client: none while it is suspended, i.e. while its owner is not active. */
  findActiveByClientId(clientId: string): Promise<ClientAppRow | undefined> {
    return this.findActiveBy('client_apps.client_id', clientId);
  }

  /** Creates the app with a secret (when confidential) and an app token; both returned once. */
  async create(input: NewClientApp, now = Date.now()): Promise<CreatedClientApp> {
    return (await this.insert(input, now, Infinity))!;
  }

  /**
   * Like create, but only while the owner has fewer than `max` apps: undefined when they have that many.
   * Registrations racing each other never pass the cap together: on PostgreSQL each first locks the owner's
   * row, so they take turns; on SQLite the insert comes first and takes the one write lock. Each then counts
   * the owner's apps, its own included, and rolls back when that is over `max`.
   */
  createWithin(max: number, input: NewClientApp, now = Date.now()): Promise<CreatedClientApp | undefined> {
    return this.insert(input, now, max);
  }

  private async insert(input: NewClientApp, now: number, max: number): Promise<CreatedClientApp | undefined> {
    const confidential = input.confidential ?? true;
    const clientSecret = confidential ? randomToken(CLIENT_SECRET_PREFIX) : null;
    const appToken = randomToken(APP_TOKEN_PREFIX);
    const capped = Number.isFinite(max);
    const app = await this.db
      .transaction(async (trx) => {
        if (capped && !isSqlite(this.db)) {
          await trx('users').where({ id: input.ownerId }).forNoKeyUpdate().first('id');
        }
        const [row] = await trx('client_apps')
          .insert({
            client_id: input.clientId ?? newClientId(),
            owner_id: input.ownerId,
            name: input.name,
            redirect_uris: JSON.stringify(input.redirectUris),
            client_secret_hash: clientSecret ? sha256(clientSecret) : null,
            grant_types: JSON.stringify(['authorization_code', 'refresh_token']),
            created_at: now,
            updated_at: now,
          })
          .returning('*');
        if (capped && (await ownedCount(trx, input.ownerId)) > max) throw new OverTheCap();
        const created = toClientApp(row);
        await trx('app_tokens').insert({ app_id: created.id, token_hash: sha256(appToken), created_at: now });
        return created;
      })
      .catch((err: unknown) => {
        if (err instanceof OverTheCap) return undefined;
        throw err;
      });
    return app && { app, clientSecret, appToken };
  }

  /** Replaces every app token of the app with a new one; the old ones stop working at once. */
  async rotateAppToken(appId: number, now = Date.now()): Promise<string> {
    const appToken = randomToken(APP_TOKEN_PREFIX);
    await this.db.transaction(async (trx) => {
      await trx('app_tokens').where({ app_id: appId }).delete();
      await trx('app_tokens').insert({ app_id: appId, token_hash: sha256(appToken), created_at: now });
    });
    return appToken;
  }

  /** Replaces the client secret; the old one stops working at once, and so do the tokens it obtained. */
  async rotateClientSecret(appId: number, now = Date.now()): Promise<string> {
    const clientSecret = randomToken(CLIENT_SECRET_PREFIX);
    await this.db.transaction(async (trx) => {
      // Locks in the order every writer takes them: the app's row (a grant checking its secret waits here),
      // its tokens, then the auth epoch (their triggers); the other order could deadlock with a revocation.
      const query = trx('client_apps').where({ id: appId }).first('client_id');
      const app = await (isSqlite(this.db) ? query : query.forUpdate());
      if (!app) return;
      await trx('oidc_payloads').where({ client_id: app.client_id, model: 'ClientCredentials' }).delete();
      await trx('client_apps')
        .where({ id: appId })
        .update({ client_secret_hash: sha256(clientSecret), updated_at: now });
    });
    return clientSecret;
  }

  /**
   * The app's client secret hash as committed, read after any change of it under way (on PostgreSQL the read
   * waits for a transaction that holds the app's row); undefined when the app is gone.
   */
  async clientSecretHashOf(clientId: string): Promise<string | null | undefined> {
    return this.db.transaction(async (trx) => {
      const query = trx('client_apps').where({ client_id: clientId }).first('client_secret_hash');
      const row = await (isSqlite(this.db) ? query : query.forShare());
      return row ? ((row.client_secret_hash as string | null) ?? null) : undefined;
    });
  }

  /** Deletes the app with its app tokens and everything issued to it (grants, codes, user tokens). */
  async delete(appId: number): Promise<void> {
    await this.db.transaction(async (trx) => {
      const app = await trx('client_apps').where({ id: appId }).first('client_id');
      if (!app) return;
      await trx('oidc_payloads').where({ client_id: app.client_id }).delete();
      await trx('client_apps').where({ id: appId }).delete();
    });
  }

  async listByOwner(ownerId: number): Promise<ClientAppRow[]> {
    return (await this.db('client_apps').where({ owner_id: ownerId }).orderBy('id')).map(toClientApp);
  }

  /** The client ids of apps by their row ids. */
  async clientIds(appIds: readonly number[]): Promise<Map<number, string>> {
    if (appIds.length === 0) return new Map();
    const rows: { id: number; client_id: string }[] = await this.db('client_apps')
      .whereIn('id', [...new Set(appIds)])
      .select('id', 'client_id');
    return new Map(rows.map((r) => [Number(r.id), String(r.client_id)]));
  }

  /** The app by its row id, unless it is suspended (its owner not active). */
  findActive(appId: number): Promise<ClientAppRow | undefined> {
    return this.findActiveBy('client_apps.id', appId);
  }

  private async findActiveBy(column: string, value: string | number): Promise<ClientAppRow | undefined> {
    const row = await this.db('client_apps')
      .join('users', 'users.id', 'client_apps.owner_id')
      .where(column, value)
      .andWhere('users.activation_state', ACTIVE)
      .first('client_apps.*');
    return row ? toClientApp(row) : undefined;
  }

  /** The app only if `ownerId` owns it: account pages never touch another user's app. */
  async findOwned(ownerId: number, appId: number): Promise<ClientAppRow | undefined> {
    const row = await this.db('client_apps').where({ id: appId, owner_id: ownerId }).first();
    return row ? toClientApp(row) : undefined;
  }

  async findByClientIds(clientIds: readonly string[]): Promise<ClientAppRow[]> {
    if (clientIds.length === 0) return [];
    return (await this.db('client_apps').whereIn('client_id', clientIds)).map(toClientApp);
  }

  /** Keyset page of apps in registration (id) order, optionally of one owner. */
  page(first: number, afterId: number | null, ownerId?: number): Promise<Page<ClientAppRow>> {
    const query = this.db('client_apps').select('*');
    if (ownerId !== undefined) void query.where({ owner_id: ownerId });
    return keysetPage(query, 'id', first, afterId, toClientApp);
  }

  /** Sets the fields given; the update bumps the auth epoch like any change to an app. */
  async update(appId: number, fields: { name?: string; redirectUris?: string[] }, now = Date.now()): Promise<void> {
    await this.db('client_apps')
      .where({ id: appId })
      .update({
        ...(fields.name !== undefined ? { name: fields.name } : {}),
        ...(fields.redirectUris !== undefined ? { redirect_uris: JSON.stringify(fields.redirectUris) } : {}),
        updated_at: now,
      });
  }
}
