/** A grant lasts this long after consent, and every token issued under it at most as long (seconds). */
export const GRANT_TTL_SECONDS = 14 * 24 * 3600;

/** The grant's lifetime in whole days, as the consent page states it. */
export const GRANT_TTL_DAYS = Math.floor(GRANT_TTL_SECONDS / (24 * 3600));
