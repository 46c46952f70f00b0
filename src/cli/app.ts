import type { Command } from 'commander';
import * as v from '../services/validation.js';
import { collect, requireApp, requireUser, type Run } from './runtime.js';

interface AppCreateOptions {
  json?: boolean;
  owner: string;
  name: string;
  redirectUri: string[];
  public?: boolean;
}

export function registerApp(program: Command, run: Run): void {
  const app = program.command('app').description('manage client apps');
  app
    .command('create')
    .description('register a client app; its secret and app token are shown once')
    .requiredOption('--owner <user>', 'owner (email or uid)')
    .requiredOption('--name <name>', 'app name shown on the consent page')
    .requiredOption('--redirect-uri <uri>', 'redirect URI; repeat for several', collect, [])
    .option('--public', 'a public client (no secret; PKCE required)')
    .option('--json', 'print one JSON object')
    .action((opts: AppCreateOptions) =>
      run(opts, async ({ stores }) => {
        const name = v.text(opts.name, '--name', 200);
        const redirectUris = [...new Set(opts.redirectUri.map(v.redirectUri))];
        const owner = await requireUser(stores, opts.owner);
        const made = await stores.apps.create({ ownerId: owner.id, name, redirectUris, confidential: !opts.public });
        const json = {
          client_id: made.app.clientId,
          client_secret: made.clientSecret,
          app_token: made.appToken,
          name,
          redirect_uris: redirectUris,
          owner: owner.uid,
        };
        return { json, human: `created app ${made.app.clientId}; secret and app token (shown once) in --json` };
      }),
    );
  app
    .command('rotate-token')
    .description('replace the app token; the old one stops working at once')
    .requiredOption('--client <id>', 'client id')
    .option('--json', 'print one JSON object')
    .action((opts: { json?: boolean; client: string }) =>
      run(opts, async ({ stores }) => {
        const found = await requireApp(stores, opts.client);
        const appToken = await stores.apps.rotateAppToken(found.id);
        return { json: { app_token: appToken }, human: `new app token (shown once): ${appToken}` };
      }),
    );
}
