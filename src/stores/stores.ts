import { isSqlite } from './dialect.js';
import { AccountSessionStore } from './account-session-store.js';
import { AppStore } from './app-store.js';
import { AuditStore } from './audit-store.js';
import { ChangeStore } from './change-store.js';
import { createCounter, type Counter, type CounterLimits } from './counter-store.js';
import { EpochStore } from './epoch-store.js';
import { EventStore } from './event-store.js';
import { HealthStore } from './health-store.js';
import type { Db } from './database.js';
import { OidcStore } from './oidc-store.js';
import { PasswordResetStore } from './password-reset-store.js';
import { PersonalTokenStore } from './personal-token-store.js';
import { RegistrationStore } from './registration-store.js';
import { SecretStore } from './secret-store.js';
import { UserStore } from './user-store.js';
import { WebhookStore } from './webhook-store.js';
import { DeliveryStore } from './delivery-store.js';
import { listenForChanges, type ChangeSignal } from './change-signal.js';

export interface Stores {
  users: UserStore;
  events: EventStore;
  registrations: RegistrationStore;
  apps: AppStore;
  secrets: SecretStore;
  oidc: OidcStore;
  accountSessions: AccountSessionStore;
  epochs: EpochStore;
  changes: ChangeStore;
  passwordResets: PasswordResetStore;
  personalTokens: PersonalTokenStore;
  webhooks: WebhookStore;
  deliveries: DeliveryStore;
  health: HealthStore;
  audit: AuditStore;
  /** PostgreSQL: `onSignal` whenever changes commit, at any instance; undefined on SQLite (poll instead). */
  listenForChanges(onSignal: () => void, onError: (err: unknown) => void): ChangeSignal | undefined;
  /** A counter of the rate_limits table, shared by every instance (see counter-store.ts). */
  counter(keyPrefix: string, limits: CounterLimits): Counter;
  /** Runs `fn` with every store on one transaction: all of its writes or none. */
  transaction<T>(fn: (stores: Stores) => Promise<T>): Promise<T>;
  /** Runs `fn` reading one consistent moment of the database (a long export sees no later writes). */
  snapshot<T>(fn: (stores: Stores) => Promise<T>): Promise<T>;
}

export function createStores(db: Db): Stores {
  return {
    users: new UserStore(db),
    events: new EventStore(db),
    registrations: new RegistrationStore(db),
    apps: new AppStore(db),
    secrets: new SecretStore(db),
    oidc: new OidcStore(db),
    accountSessions: new AccountSessionStore(db),
    epochs: new EpochStore(db),
    changes: new ChangeStore(db),
    passwordResets: new PasswordResetStore(db),
    personalTokens: new PersonalTokenStore(db),
    webhooks: new WebhookStore(db),
    deliveries: new DeliveryStore(db),
    health: new HealthStore(db),
    audit: new AuditStore(db),
    listenForChanges: (onSignal, onError) => listenForChanges(db, onSignal, onError),
    counter: (keyPrefix, limits) => createCounter(db, keyPrefix, limits),
    transaction: (fn) => db.transaction((trx) => fn(createStores(trx))),
    // A SQLite transaction already reads one moment (and knex warns at an isolation level there).
    snapshot: (fn) =>
      db.transaction(
        (trx) => fn(createStores(trx)),
        isSqlite(db) ? {} : { isolationLevel: 'repeatable read', readOnly: true },
      ),
  };
}
