import type { Db } from './database.js';

/** Connections of the database pool by state (PostgreSQL; SQLite has no pool). */
export interface PoolStats {
  used: number;
  free: number;
  pending: number;
}

/** What readiness and the metrics ask of the database itself. */
export class HealthStore {
  constructor(private readonly db: Db) {}

  /** Resolves when the database answers a statement; rejects with why it does not. */
  async ping(): Promise<void> {
    await this.db.raw('select 1');
  }

  pool(): PoolStats | undefined {
    const { pool } = this.db.client as {
      pool?: { numUsed(): number; numFree(): number; numPendingAcquires(): number };
    };
    return pool && { used: pool.numUsed(), free: pool.numFree(), pending: pool.numPendingAcquires() };
  }
}
