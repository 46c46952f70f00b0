/** Scope → the claims it grants (docs/identity.md). `sub` and `updated_at` come with every userinfo answer. */
export const SCOPE_CLAIMS = {
  openid: ['sub', 'uid', 'updated_at'],
  email: ['email', 'email_verified'],
  profile: ['name', 'picture', 'zoneinfo'],
} as const;

export type Scope = keyof typeof SCOPE_CLAIMS;

export const SUPPORTED_SCOPES = Object.keys(SCOPE_CLAIMS) as Scope[];

export const isScope = (s: string): s is Scope => (SUPPORTED_SCOPES as string[]).includes(s);
