import type { Command } from 'commander';
import { collect, type Run } from './runtime.js';

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
      run(opts, async ({ services }) => {
        const owner = await services.users.getByKey(opts.owner);
        const made = await services.apps.create({
          ownerId: owner.id,
          name: opts.name,
          redirectUris: opts.redirectUri,
          confidential: !opts.public,
        });
        const json = {
          client_id: made.app.clientId,
          client_secret: made.clientSecret,
          app_token: made.appToken,
          name: made.app.name,
          redirect_uris: made.app.redirectUris,
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
      run(opts, async ({ services }) => {
        const appToken = await services.apps.rotateAppToken(await services.apps.getByClientId(opts.client));
        return { json: { app_token: appToken }, human: `new app token (shown once): ${appToken}` };
      }),
    );
}
