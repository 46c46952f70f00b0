import type { Command } from 'commander';
import type { ClientAppRow, UserRow } from '../stores/types.js';
import { collect, type Run } from './runtime.js';
import { fields, isoOrNull, nextCursor, pageText, table } from './table.js';
import { isSuspended } from '../services/account-state.js';

const appJson = (app: ClientAppRow, owner: UserRow | undefined) => ({
  client_id: app.clientId,
  name: app.name,
  owner: owner?.uid ?? null,
  redirect_uris: app.redirectUris,
  type: app.clientSecretHash === null ? 'public' : 'confidential',
  // An app works only while its owner is active.
  suspended: isSuspended(owner),
  created_at: isoOrNull(app.createdAt),
  updated_at: isoOrNull(app.updatedAt),
});

/**
 * What `app create` tells people: the client id, then each secret shown once on a labelled line of its own
 * (only their hashes are kept: an operator who did not ask for --json must not lose them).
 */
export const createdText = (clientId: string, clientSecret: string | null, appToken: string): string =>
  [
    `created app ${clientId}`,
    clientSecret === null
      ? 'client secret: none (a public client signs in with PKCE)'
      : `client secret (shown once): ${clientSecret}`,
    `app token (shown once): ${appToken}`,
  ].join('\n');

interface AppUpdateOptions {
  json?: boolean;
  client: string;
  name?: string;
  redirectUri: string[];
  addRedirectUri: string[];
  removeRedirectUri: string[];
}

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
      run(
        opts,
        async ({ services }) => {
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
          const audit = { clientId: made.app.clientId, userId: owner.id };
          return { json, audit, human: createdText(made.app.clientId, made.clientSecret, made.appToken) };
        },
        { write: { action: 'app.created', subject: opts.name } },
      ),
    );
  app
    .command('rotate-token')
    .description('replace the app token; the old one stops working at once')
    .requiredOption('--client <id>', 'client id')
    .option('--json', 'print one JSON object')
    .action((opts: { json?: boolean; client: string }) =>
      run(
        opts,
        async ({ services }) => {
          const appToken = await services.apps.rotateAppToken(await services.apps.getByClientId(opts.client));
          return { json: { app_token: appToken }, human: `new app token (shown once): ${appToken}` };
        },
        { write: { action: 'app.token_rotated', clientId: opts.client } },
      ),
    );
  app
    .command('list')
    .description('list apps in registration order, a page at a time')
    .option('--owner <user>', "only this user's apps (email or uid)")
    .option('--limit <n>', 'apps per page (1-1000)', '50')
    .option('--after <cursor>', "the page after this cursor (the previous page's 'next')")
    .option('--json', 'print one JSON object')
    .action((opts: { json?: boolean; owner?: string; limit: string; after?: string }) =>
      run(opts, async ({ services }) => {
        const owner = opts.owner === undefined ? undefined : await services.users.getByKey(opts.owner);
        const page = await services.apps.list(opts, owner?.id);
        const owners = new Map((await services.users.findByIds(page.rows.map((a) => a.ownerId))).map((u) => [u.id, u]));
        const apps = page.rows.map((a) => appJson(a, owners.get(a.ownerId)));
        const next = nextCursor(page);
        const rows = apps.map((a) => [a.client_id, a.name, a.owner, a.type, a.suspended ? 'suspended' : 'active']);
        const human = pageText(table(['CLIENT ID', 'NAME', 'OWNER', 'TYPE', 'STATE'], rows), rows.length, next);
        return { json: { apps, next }, human };
      }),
    );
  app
    .command('show')
    .description('show an app (never its secret or tokens: only their hashes are stored)')
    .requiredOption('--client <id>', 'client id')
    .option('--json', 'print one JSON object')
    .action((opts: { json?: boolean; client: string }) =>
      run(opts, async ({ services }) => {
        const found = await services.apps.getByClientId(opts.client);
        const json = appJson(found, await services.users.findById(found.ownerId));
        return { json, human: fields(json) };
      }),
    );
  app
    .command('update')
    .description('rename an app or edit its redirect URIs (at most 10)')
    .requiredOption('--client <id>', 'client id')
    .option('--name <name>', 'app name shown on the consent page')
    .option('--redirect-uri <uri>', 'replace the redirect URIs with these; repeat for several', collect, [])
    .option('--add-redirect-uri <uri>', 'add a redirect URI; repeat for several', collect, [])
    .option('--remove-redirect-uri <uri>', 'remove a redirect URI; repeat for several', collect, [])
    .option('--json', 'print one JSON object')
    .action((opts: AppUpdateOptions) =>
      run(
        opts,
        async ({ services }) => {
          const updated = await services.apps.update(await services.apps.getByClientId(opts.client), {
            name: opts.name,
            redirectUris: opts.redirectUri.length > 0 ? opts.redirectUri : undefined,
            addRedirectUris: opts.addRedirectUri,
            removeRedirectUris: opts.removeRedirectUri,
          });
          const json = appJson(updated, await services.users.findById(updated.ownerId));
          return { json, human: `updated app ${updated.clientId}` };
        },
        { write: { action: 'app.updated', clientId: opts.client } },
      ),
    );
  app
    .command('delete')
    .description('delete an app with its app tokens and the grants, codes and tokens issued to it')
    .requiredOption('--client <id>', 'client id')
    .option('--json', 'print one JSON object')
    .action((opts: { json?: boolean; client: string }) =>
      run(
        opts,
        async ({ services }) => {
          await services.apps.delete(await services.apps.getByClientId(opts.client));
          return { json: { deleted: opts.client }, human: `deleted app ${opts.client}` };
        },
        { write: { action: 'app.deleted', clientId: opts.client } },
      ),
    );
  app
    .command('rotate-secret')
    .description('replace the client secret; the old one stops working at once')
    .requiredOption('--client <id>', 'client id')
    .option('--json', 'print one JSON object')
    .action((opts: { json?: boolean; client: string }) =>
      run(
        opts,
        async ({ services }) => {
          const secret = await services.apps.rotateClientSecret(await services.apps.getByClientId(opts.client));
          return {
            json: { client_id: opts.client, client_secret: secret },
            human: `new client secret (shown once): ${secret}`,
          };
        },
        { write: { action: 'app.secret_rotated', clientId: opts.client } },
      ),
    );
}
