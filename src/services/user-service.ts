import { hashPassword } from '../lib/secrets.js';
import type { Stores } from '../stores/stores.js';
import type { Page, UserRow } from '../stores/types.js';
import { Conflict, InvalidInput, NotFound } from './errors.js';
import * as v from './validation.js';

export const MIN_PASSWORD_LENGTH = 8;

/** Fields an operator changes; those left out keep their stored value, null clears one. */
export interface UserUpdateInput {
  email?: string | null;
  name?: string;
  picture?: string | null;
  zoneinfo?: string | null;
  emailVerified?: boolean;
}

/** A user with what refers to them: what deleting them takes along. */
export interface UserDetail {
  user: UserRow;
  /** Client ids of the user's apps. */
  apps: string[];
  registrations: number;
  /** Slugs of the events the user organizes. */
  organizerOf: string[];
}

/** A new user as an operator describes one; every field is checked here. */
export interface NewUserInput {
  /** null: a registrant without an address. */
  email: string | null;
  name: string;
  password?: string;
  picture?: string;
  zoneinfo?: string;
  /** Only an address can be verified: ignored without one. */
  emailVerified?: boolean;
  activationState?: string;
}

const notFound = (key: string) => new NotFound(`no user with ${key.includes('@') ? 'email' : 'uid'} ${key}`);

export class UserService {
  constructor(private readonly stores: Stores) {}

  /** A user named by email (contains `@`) or by uid. */
  findByKey(key: string): Promise<UserRow | undefined> {
    return this.stores.users.findByKey(key);
  }

  /** Like findByKey, but a user that does not exist is a NotFound. */
  async getByKey(key: string): Promise<UserRow> {
    const user = await this.stores.users.findByKey(key);
    if (!user) throw notFound(key);
    return user;
  }

  /** Each named user once, in the order first named, in a few statements; NotFound names the first one missing. */
  async getByKeys(keys: readonly string[]): Promise<UserRow[]> {
    const found = await this.stores.users.findByKeys(keys);
    const users = new Map<number, UserRow>();
    for (const key of keys) {
      const user = found.get(key.includes('@') ? key.toLowerCase() : key);
      if (!user) throw notFound(key);
      users.set(user.id, user);
    }
    return [...users.values()];
  }

  findById(id: number): Promise<UserRow | undefined> {
    return this.stores.users.findById(id);
  }

  findByIds(ids: readonly number[]): Promise<UserRow[]> {
    return this.stores.users.findByIds(ids);
  }

  isEmpty(): Promise<boolean> {
    return this.stores.users.isEmpty();
  }

  /** Creates a user; an email address belongs to one user only. */
  async create(input: NewUserInput): Promise<UserRow> {
    const email = input.email === null ? null : v.email(input.email);
    if (input.password !== undefined) checkPassword(input.password);
    const name = v.text(input.name, 'name');
    const picture = input.picture === undefined ? null : v.httpUrl(input.picture, 'picture');
    const zoneinfo = input.zoneinfo === undefined ? null : v.timeZone(input.zoneinfo, 'zoneinfo');
    const activationState = v.activationState(input.activationState ?? 'active');
    if (email && (await this.stores.users.findByEmail(email))) throw new Conflict(`a user with email ${email} exists`);
    return this.stores.users.create({
      email,
      name,
      picture,
      zoneinfo,
      emailVerified: email !== null && input.emailVerified === true,
      activationState,
      passwordHash: input.password === undefined ? null : await hashPassword(input.password),
    });
  }

  /** Sets the activation state of the user named by email or uid: inactive users' tokens and apps stop at once. */
  async setState(key: string, state: string): Promise<UserRow> {
    const activationState = v.activationState(state);
    const user = await this.getByKey(key);
    return (await this.stores.users.setActivationState(user.id, activationState)) ?? user;
  }

  /** Sets the password the user signs in with (stored as a scrypt hash). */
  async setPassword(user: UserRow, password: string): Promise<void> {
    checkPassword(password);
    await this.stores.users.setPasswordHash(user.id, await hashPassword(password));
  }

  /** The user with what refers to them: their apps, the events they organize, how many registrations. */
  async show(key: string): Promise<UserDetail> {
    const user = await this.getByKey(key);
    const apps = await this.stores.apps.listByOwner(user.id);
    const { all } = await this.stores.events.organizedBy(user.id);
    const registrations = await this.stores.registrations.countOf(user.id);
    return { user, apps: apps.map((a) => a.clientId), registrations, organizerOf: all };
  }

  /** Keyset page of users in creation order, optionally of one activation state. */
  list(paging: v.PageInput, state?: string): Promise<Page<UserRow>> {
    const { first, afterId } = v.paging(paging);
    return this.stores.users.page(first, afterId, state === undefined ? undefined : v.activationState(state));
  }

  /** Changes the fields given; a new address is unverified unless said otherwise, and belongs to one user only. */
  async update(key: string, input: UserUpdateInput): Promise<UserRow> {
    if (Object.values(input).every((value) => value === undefined)) {
      throw new InvalidInput('nothing to change: give at least one field to update');
    }
    const user = await this.getByKey(key);
    const email = input.email === undefined || input.email === null ? input.email : v.email(input.email);
    const name = input.name === undefined ? user.name : v.text(input.name, 'name');
    const picture = input.picture == null ? input.picture : v.httpUrl(input.picture, 'picture');
    const zoneinfo = input.zoneinfo == null ? input.zoneinfo : v.timeZone(input.zoneinfo, 'zoneinfo');
    const emailChanged = email !== undefined && email?.toLowerCase() !== user.email?.toLowerCase();
    if (email && emailChanged) {
      const holder = await this.stores.users.findByEmail(email);
      if (holder && holder.id !== user.id) throw new Conflict(`a user with email ${email} exists`);
    }
    const finalEmail = email === undefined ? user.email : email;
    const verified = input.emailVerified ?? (emailChanged ? false : undefined);
    await this.stores.users.update(user.id, {
      email,
      name,
      picture,
      zoneinfo,
      emailVerified: finalEmail === null ? false : verified,
    });
    return (await this.stores.users.findById(user.id))!;
  }

  /**
   * A password reset (by an operator or a reset link): the new password signs in from now on, and the user's
   * sessions (account pages and provider), refresh tokens and other reset links end, so whoever knew the old
   * one is signed out.
   */
  async resetPassword(
    key: string,
    password: string,
    /** Runs first in the same transaction (a reset link used up, the audit row); throwing undoes the reset. */
    also?: (s: Stores, user: UserRow) => Promise<void>,
  ): Promise<{ user: UserRow; sessionsEnded: number }> {
    checkPassword(password);
    const user = await this.getByKey(key);
    const hash = await hashPassword(password);
    const sessionsEnded = await this.stores.transaction(async (s) => {
      await also?.(s, user);
      await s.users.setPasswordHash(user.id, hash);
      await s.passwordResets.deleteForUser(user.id);
      // Whoever knew the old password may have made a personal token with it: it ends too (a year otherwise).
      await s.personalTokens.deleteForUser(user.id);
      return (await s.accountSessions.deleteForUser(user.id)) + (await s.oidc.endSessions(user.uid));
    });
    return { user, sessionsEnded };
  }

  /**
   * Deletes the user with everything that could still speak for them: their apps (with app tokens, grants
   * and tokens issued to them), their grants and tokens at every app, provider and account sessions,
   * registrations and organizer links. An event's only organizer cannot be deleted: the event would be orphaned.
   */
  async delete(key: string): Promise<UserDetail> {
    const user = await this.getByKey(key);
    return this.stores.transaction(async (s) => {
      const organized = await s.events.organizedBy(user.id);
      if (organized.alone.length > 0) {
        const events = organized.alone.join(', ');
        throw new Conflict(
          `user ${user.uid} is the only organizer of ${events}: add an organizer or delete the event first`,
        );
      }
      const apps = await s.apps.listByOwner(user.id);
      for (const app of apps) await s.apps.delete(app.id);
      await s.oidc.deleteForAccount(user.uid);
      const registrations = await s.registrations.countOf(user.id);
      if (!(await s.users.delete(user.id))) throw notFound(key); // deleted meanwhile
      return { user, apps: apps.map((a) => a.clientId), registrations, organizerOf: organized.all };
    });
  }
}

/** The one password rule, for the CLI, the services and the reset page. */
export function checkPassword(password: string): void {
  if (password.length < MIN_PASSWORD_LENGTH) {
    throw new InvalidInput(`must be at least ${MIN_PASSWORD_LENGTH} characters`, 'password');
  }
}
