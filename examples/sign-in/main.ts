import { fileURLToPath } from 'node:url';
import { printRegistrants } from '../client/print-registrants.js';
import { signIn } from './sign-in.js';

/** Signs in (the user opens the printed URL), prints who signed in, then runs the canonical query as them. */
export async function main(env: NodeJS.ProcessEnv, print: (line: string) => void): Promise<void> {
  const url = env.ROSTER_URL ?? 'http://localhost:4000';
  const clientId = env.ROSTER_CLIENT_ID;
  if (!clientId) throw new Error('Set ROSTER_CLIENT_ID to the client id of an app (examples/README.md).');
  const { tokens, claims, userinfo } = await signIn({
    issuer: url,
    clientId,
    clientSecret: env.ROSTER_CLIENT_SECRET || undefined,
    redirectUri: env.ROSTER_REDIRECT_URI ?? 'http://localhost:3000/callback',
    scope: 'openid email profile',
    openInBrowser: (authorizationUrl) => print(`Open this URL in a browser to sign in:\n${authorizationUrl.href}`),
  });
  // What the user granted: they may untick email or profile on the consent page.
  print(`Granted scopes: ${tokens.scope ?? ''}`);
  print(`Signed in as ${userinfo.name ?? '(no name)'} <${userinfo.email ?? 'no email'}> (sub ${claims.sub})`);

  // The access token is a bearer token for /graphql too.
  await printRegistrants({ url, token: tokens.access_token }, env.ROSTER_EVENT ?? 'roster-launch', print);
}

// Run as a program (not when a test imports it).
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main(process.env, (line) => console.log(line)).catch((err: Error) => {
    console.error(err.message);
    process.exitCode = 1;
  });
}
