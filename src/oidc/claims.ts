import type { UserRow } from '../stores/types.js';
import { sha256 } from '../lib/secrets.js';
import { SCOPE_CLAIMS } from '../lib/scopes.js';

export { SCOPE_CLAIMS, SUPPORTED_SCOPES } from '../lib/scopes.js';

/** Pairwise subject: the same user has a different, stable `sub` at each app. */
export function pairwiseSubject(clientId: string, uid: string, salt: string): string {
  return sha256(`${clientId}\u0000${uid}\u0000${salt}`);
}

export type Claims = Record<string, string | number | boolean>;

/** Every claim the user has, unknown ones left out (not null). */
export function allClaims(user: UserRow, sub: string): Claims & { sub: string } {
  const claims: Claims & { sub: string } = {
    sub,
    uid: user.uid,
    updated_at: Math.floor(user.updatedAt / 1000),
    name: user.name,
  };
  if (user.email !== null) {
    claims.email = user.email;
    claims.email_verified = user.emailVerified;
  }
  if (user.picture !== null) claims.picture = user.picture;
  if (user.zoneinfo !== null) claims.zoneinfo = user.zoneinfo;
  return claims;
}

/** The claims the granted scopes allow: `sub` and `updated_at` always. */
export function claimsForScopes(claims: Claims, scopes: readonly string[]): Claims {
  const allowed = new Set<string>(['sub', 'updated_at']);
  for (const scope of scopes) for (const c of SCOPE_CLAIMS[scope as keyof typeof SCOPE_CLAIMS] ?? []) allowed.add(c);
  return Object.fromEntries(Object.entries(claims).filter(([name]) => allowed.has(name)));
}
