import type { Command } from 'commander';
import { SUPPORTED_SCOPES } from '../identity/claims.js';
import { CliError, type Run } from './runtime.js';

export function registerToken(program: Command, run: Run): void {
  const token = program.command('token').description('mint and revoke user access tokens');
  token
    .command('create')
    .description('mint a user access token, as if the user had consented at the app')
    .requiredOption('--user <user>', 'the user (email or uid)')
    .requiredOption('--client <id>', 'the app the token is issued to')
    .option('--scope <scopes>', 'space-separated scopes', 'openid email profile')
    .option('--json', 'print one JSON object')
    .action((opts: { json?: boolean; user: string; client: string; scope: string }) =>
      run(opts, async ({ config, stores, services }) => {
        const scopes = [...new Set(opts.scope.split(/\s+/).filter(Boolean))];
        const unknown = scopes.find((s) => !(SUPPORTED_SCOPES as string[]).includes(s));
        if (unknown) throw new CliError(`unknown scope ${unknown}: use ${SUPPORTED_SCOPES.join(', ')}`);
        if (scopes.length === 0) throw new CliError('--scope needs at least one scope');
        const { user, app } = await services.grants.tokenSubject(opts.user, opts.client);
        // Loaded here only: the provider is heavy and the other commands do not need it.
        const { createIdentity } = await import('../identity/provider.js');
        const { mintAccessToken } = await import('../identity/mint-token.js');
        const { provider } = await createIdentity({ config, stores });
        const minted = await mintAccessToken(provider, {
          accountId: user.uid,
          clientId: app.clientId,
          scope: scopes.join(' '),
        });
        return { json: { ...minted }, human: minted.access_token };
      }),
    );
  token
    .command('revoke')
    .description("revoke a user's grants to an app (or to every app) with every token issued under them")
    .requiredOption('--user <user>', 'the user (email or uid)')
    .option('--client <id>', 'only the grants to this app')
    .option('--json', 'print one JSON object')
    .action((opts: { json?: boolean; user: string; client?: string }) =>
      run(opts, async ({ services }) => {
        const { user, grants } = await services.grants.revokeFor(opts.user, opts.client);
        const json = { user: user.uid, client_id: opts.client ?? null, revoked_grants: grants };
        return { json, human: `revoked ${grants} grant(s) of ${user.uid}${opts.client ? ` to ${opts.client}` : ''}` };
      }),
    );
}
