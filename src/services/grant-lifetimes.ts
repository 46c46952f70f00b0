/** A grant lasts this long after consent, and every token issued under it at most as long (seconds). */
export const GRANT_TTL_SECONDS = 14 * 24 * 3600;

/** The grant's lifetime in whole days, as the consent page states it. */
export const GRANT_TTL_DAYS = Math.floor(GRANT_TTL_SECONDS / (24 * 3600));

/** Seconds left of a grant ending at `exp` (epoch seconds), at least 1; a whole lifetime when it has no end yet. */
export function remainingGrantTtl(exp: number | undefined, now = Date.now()): number {
  return exp === undefined ? GRANT_TTL_SECONDS : Math.max(1, exp - Math.floor(now / 1000));
}
