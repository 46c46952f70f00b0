import { hashPassword } from '../lib/secrets.js';
import type { Stores } from '../stores/stores.js';
import type { UserRow } from '../stores/types.js';
import { Conflict, InvalidInput, NotFound } from './errors.js';
import * as v from './validation.js';

const MIN_PASSWORD_LENGTH = 8;

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
}

function checkPassword(password: string): void {
  if (password.length < MIN_PASSWORD_LENGTH) {
    throw new InvalidInput(`must be at least ${MIN_PASSWORD_LENGTH} characters`, 'password');
  }
}
