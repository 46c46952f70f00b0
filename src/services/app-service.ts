import type { CreatedClientApp } from '../stores/app-store.js';
import type { Stores } from '../stores/stores.js';
import type { ClientAppRow, Page } from '../stores/types.js';
import { Conflict, InvalidInput, NotFound } from './errors.js';
import * as v from './validation.js';
import { isRowId } from '../lib/ids.js';
import { printable, quoted } from '../lib/text.js';
import { audited, type Actor } from './audit.js';
import { EXPLORER_CLIENT_ID, explorerName } from './explorer-client.js';
import { DEFAULT_SERVICE_NAME } from '../config.js';

const MAX_REDIRECT_URIS = 10;

/** Apps an owner may have unless configured (MAX_APPS_PER_USER). */
export const DEFAULT_MAX_APPS_PER_USER = 25;

/** What the app rules depend on in this deployment. */
export interface AppRules {
  /** NODE_ENV=production: redirect URIs must be https except on a loopback host. */
  production: boolean;
  /** The most apps one owner may have (MAX_APPS_PER_USER), whoever registers them: account pages or CLI. */
  maxAppsPerUser: number;
  /** SERVICE_NAME: the built-in explorer is named after it. */
  serviceName: string;
}

/** What an operator changes of an app: a new name, and the redirect URIs replaced, added or removed. */
export interface AppUpdateInput {
  name?: string;
  /** Replaces the whole list. */
  redirectUris?: readonly string[];
  addRedirectUris?: readonly string[];
  removeRedirectUris?: readonly string[];
}

/** Blank entries and repeats dropped; then 1 to MAX_REDIRECT_URIS valid URIs. */
function redirectUris(list: readonly string[], production: boolean): string[] {
  const uris = [...new Set(list.map((u) => u.trim()).filter(Boolean))];
  if (uris.length === 0) throw new InvalidInput('enter at least one redirect URI');
  if (uris.length > MAX_REDIRECT_URIS) throw new InvalidInput(`at most ${MAX_REDIRECT_URIS} redirect URIs`);
  return uris.map((u) => v.redirectUri(u, 'redirect_uri', { production }));
}

/** An app's name: one line of printable text, 1 to 200 characters. */
const appName = (name: string) => v.text(name.trim(), 'name', 200);

/** A new client app as its owner (the account pages) or an operator (the CLI) describes it. */
export interface NewAppInput {
  ownerId: number;
  name: string;
  /** Blank entries and repeats are dropped; then 1 to MAX_REDIRECT_URIS. */
  redirectUris: readonly string[];
  /** A public client has no secret and must use PKCE. */
  confidential?: boolean;
  /** A fixed client id (the demo app's); a random one otherwise. */
  clientId?: string;
}

export class AppService {
  constructor(
    private readonly stores: Stores,
    private readonly rules: AppRules = {
      production: false,
      maxAppsPerUser: DEFAULT_MAX_APPS_PER_USER,
      serviceName: DEFAULT_SERVICE_NAME,
    },
  ) {}

  /** The name of the app with this client id, the built-in explorer's included; undefined when there is none. */
  async nameOf(clientId: string): Promise<string | undefined> {
    if (clientId === EXPLORER_CLIENT_ID) return explorerName(this.rules.serviceName);
    return (await this.stores.apps.findByClientId(clientId))?.name;
  }

  findByClientId(clientId: string): Promise<ClientAppRow | undefined> {
    return this.stores.apps.findByClientId(clientId);
  }

  /** Like findByClientId, but an app that does not exist is a NotFound. */
  async getByClientId(clientId: string): Promise<ClientAppRow> {
    const app = await this.stores.apps.findByClientId(clientId);
    if (!app) throw new NotFound(`no app with client id ${printable(clientId)}`);
    return app;
  }

  listOwned(ownerId: number): Promise<ClientAppRow[]> {
    return this.stores.apps.listByOwner(ownerId);
  }

  /** The app with this id (as the URL gives it) only if `ownerId` owns it: nobody touches another user's app. */
  findOwned(ownerId: number, id: string): Promise<ClientAppRow | undefined> {
    if (!/^[1-9]\d{0,9}$/.test(id) || !isRowId(Number(id))) return Promise.resolve(undefined);
    return this.stores.apps.findOwned(ownerId, Number(id));
  }

  /**
   * Registers the app; its secret (when confidential) and app token are in the answer, and nowhere else.
   * An owner who has MAX_APPS_PER_USER apps already (suspended ones included) gets a Conflict, also when
   * registrations race: the store checks the count in the transaction that inserts.
   */
  async create(input: NewAppInput, by?: Actor): Promise<CreatedClientApp> {
    const { maxAppsPerUser } = this.rules;
    // The explorer's client id is the provider's own: an app registered under it could never sign anyone in.
    if (input.clientId === EXPLORER_CLIENT_ID) throw new Conflict(`client id ${EXPLORER_CLIENT_ID} is built in`);
    const fields = {
      ownerId: input.ownerId,
      name: appName(input.name),
      redirectUris: redirectUris(input.redirectUris, this.rules.production),
      confidential: input.confidential ?? true,
      clientId: input.clientId,
    };
    return audited(
      this.stores,
      by,
      async (s) => {
        const created = await s.apps.createWithin(maxAppsPerUser, fields);
        if (!created) {
          throw new Conflict(`an account may have at most ${maxAppsPerUser} apps; delete one to register another`);
        }
        return created;
      },
      (m) => ({ action: 'app.created', subject: m.app.name, clientId: m.app.clientId }),
    );
  }

  /** A new app token; the old ones stop working at once. */
  rotateAppToken(app: ClientAppRow, by?: Actor): Promise<string> {
    return audited(
      this.stores,
      by,
      (s) => s.apps.rotateAppToken(app.id),
      () => this.entry('app.token_rotated', app),
    );
  }

  /** A new client secret; the old one stops working at once. A public app has none to replace. */
  async rotateClientSecret(app: ClientAppRow, by?: Actor): Promise<string> {
    if (!app.clientSecretHash) throw new Conflict('a public app has no client secret');
    const rotate = (s: Stores) => s.apps.rotateClientSecret(app.id);
    return audited(this.stores, by, rotate, () => this.entry('app.secret_rotated', app));
  }

  /** Deletes the app with its tokens and everything issued to it. */
  delete(app: ClientAppRow, by?: Actor): Promise<void> {
    return audited(
      this.stores,
      by,
      (s) => s.apps.delete(app.id),
      () => this.entry('app.deleted', app),
    );
  }

  private entry(action: 'app.token_rotated' | 'app.secret_rotated' | 'app.deleted' | 'app.updated', app: ClientAppRow) {
    return { action, subject: app.name, clientId: app.clientId };
  }

  /** Keyset page of apps in registration order, optionally of one owner. */
  list(paging: v.PageInput, ownerId?: number): Promise<Page<ClientAppRow>> {
    const { first, afterId } = v.paging(paging);
    return this.stores.apps.page(first, afterId, ownerId);
  }

  /** Renames the app or edits its redirect URIs (removals, then additions, to the list given or stored). */
  async update(app: ClientAppRow, input: AppUpdateInput, by?: Actor): Promise<ClientAppRow> {
    const { name, redirectUris: replace, addRedirectUris: add = [], removeRedirectUris: remove = [] } = input;
    if (name === undefined && replace === undefined && add.length === 0 && remove.length === 0) {
      throw new InvalidInput('nothing to change: give a name or redirect URIs');
    }
    const base = replace ?? app.redirectUris;
    const missing = remove.find((u) => !base.includes(u.trim()));
    if (missing !== undefined)
      throw new InvalidInput(`${quoted(missing)} is not a redirect URI of the app`, 'remove_redirect_uri');
    const uris = [...base.filter((u) => !remove.some((r) => r.trim() === u)), ...add];
    const fields = {
      name: name === undefined ? undefined : appName(name),
      redirectUris:
        replace === undefined && add.length === 0 && remove.length === 0
          ? undefined
          : redirectUris(uris, this.rules.production),
    };
    await audited(
      this.stores,
      by,
      (s) => s.apps.update(app.id, fields),
      () => this.entry('app.updated', app),
    );
    return (await this.stores.apps.findByClientId(app.clientId)) ?? app;
  }
}
