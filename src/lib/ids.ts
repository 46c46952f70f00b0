import { randomToken } from './secrets.js';

/** App tokens carry a prefix so secret scanners can recognise a leaked one. */
export const APP_TOKEN_PREFIX = 'rst_app_';
export const CLIENT_SECRET_PREFIX = 'rst_cs_';

/** A new user's public id. */
export const newUid = (): string => randomToken('u_', 12);

/** Opaque, type-tagged ids: `Event:12` → base64url. */
export function globalId(type: string, id: number): string {
  return Buffer.from(`${type}:${id}`).toString('base64url');
}
