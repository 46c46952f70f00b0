import type { Db } from './database.js';

export interface SigningKeyRow {
  kid: string;
  jwk: Record<string, unknown>;
  createdAt: number;
}

/** Service secrets and signing keys, shared by every instance on the same database. */
export class SecretStore {
  constructor(private readonly db: Db) {}

  /** Returns the named secret, creating it first if no instance has yet. */
  async getOrCreate(name: string, make: () => string): Promise<string> {
    const existing = await this.db('service_secrets').where({ name }).first('value');
    if (existing) return String(existing.value);
    // Two instances may race here: the insert is ignored for the loser, who reads the winner's.
    await this.db('service_secrets')
      .insert({ name, value: make(), created_at: Date.now() })
      .onConflict('name')
      .ignore();
    const row = await this.db('service_secrets').where({ name }).first('value');
    return String(row.value);
  }

  /** Signing keys, newest first (the provider signs with the first). */
  async signingKeys(): Promise<SigningKeyRow[]> {
    const rows = await this.db('signing_keys').orderBy('id', 'desc');
    return rows.map((r) => ({ kid: String(r.kid), jwk: JSON.parse(String(r.jwk)), createdAt: Number(r.created_at) }));
  }

  async addSigningKey(
    kid: string,
    jwk: Record<string, unknown>,
    now = Date.now(),
    { ifAbsent = false } = {},
  ): Promise<void> {
    const insert = this.db('signing_keys').insert({ kid, jwk: JSON.stringify(jwk), created_at: now });
    await (ifAbsent ? insert.onConflict('kid').ignore() : insert);
  }

  async deleteSigningKeys(kids: readonly string[]): Promise<number> {
    if (kids.length === 0) return 0;
    return this.db('signing_keys').whereIn('kid', kids).delete();
  }
}
