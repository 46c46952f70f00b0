import { passwordHref } from './paths.js';

/** The page a password reset link opens. */
export const RESET_PATH = passwordHref('/reset');

/** A reset link's page under BASE_URL (never the request's Host), for the reset service to hand out. */
export function resetLinkFor(baseUrl: string): (token: string) => string {
  return (token) => {
    const url = new URL(`${baseUrl}${RESET_PATH}`);
    url.searchParams.set('token', token);
    return url.toString();
  };
}
