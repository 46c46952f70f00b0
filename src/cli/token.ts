import type { Command } from 'commander';
import { SUPPORTED_SCOPES } from '../oidc/claims.js';
import { CliError, readFirstLine, type CliIo, type Run } from './runtime.js';

export function registerToken(program: Command, run: Run, io: CliIo): void {
  const token = program.command('token').description('mint and revoke user access tokens');
  token
    .command('create')
    .description('mint a user access token, as if the user had consented at the app')
    .requiredOption('--user <user>', 'the user (email or uid)')
    .requiredOption('--client <id>', 'the app the token is issued to')
    .option('--scope <scopes>', 'space-separated scopes', 'openid email profile')
    .option('--json', 'print one JSON object')
    .action((opts: { json?: boolean; user: string; client: string; scope: string }) =>
      run(
        opts,
        async ({ config, stores, services }) => {
          const scopes = [...new Set(opts.scope.split(/\s+/).filter(Boolean))];
          const unknown = scopes.find((s) => !(SUPPORTED_SCOPES as string[]).includes(s));
          if (unknown) throw new CliError(`unknown scope ${unknown}: use ${SUPPORTED_SCOPES.join(', ')}`);
          if (scopes.length === 0) throw new CliError('--scope needs at least one scope');
          const { user, app } = await services.grants.tokenSubject(opts.user, opts.client);
          // Loaded here only: the provider is heavy and the other commands do not need it.
          const { createIdentity } = await import('../oidc/provider.js');
          const { mintAccessToken } = await import('../oidc/mint-token.js');
          const { provider } = await createIdentity({ config, stores });
          const minted = await mintAccessToken(provider, {
            accountId: user.uid,
            clientId: app.clientId,
            scope: scopes.join(' '),
          });
          const audit = { subject: user.uid, userId: user.id, clientId: app.clientId };
          return { json: { ...minted }, audit, human: minted.access_token };
        },
        { write: { action: 'token.issued', subject: opts.user, clientId: opts.client } },
      ),
    );
  token
    .command('revoke')
    .description(
      "revoke a user's grants to an app (or to every app), or one token's grant, with every token under them",
    )
    .option('--user <user>', 'the user (email or uid)')
    .option('--client <id>', 'with --user: only the grants to this app')
    .option('--token-stdin', "read a user token (access or refresh) from stdin's first line and revoke its grant")
    .option('--json', 'print one JSON object')
    .action((opts: { json?: boolean; user?: string; client?: string; tokenStdin?: boolean }) =>
      run(
        opts,
        async ({ services }) => {
          const usage = 'name the grants with --user (and --client), or a token with --token-stdin (one of them)';
          if (opts.tokenStdin) {
            if (opts.user !== undefined || opts.client !== undefined) throw new CliError(usage);
            // From stdin, never argv: a token on the command line shows in `ps` and the shell's history.
            const revoked = await services.grants.revokeToken((await readFirstLine(io.stdin)).trim());
            const json = { user: revoked.uid, client_id: revoked.clientId, revoked_grants: 1 };
            const audit = { subject: revoked.uid, clientId: revoked.clientId };
            return {
              json,
              audit,
              human: `revoked the grant of ${revoked.uid} to ${revoked.clientId} and every token under it`,
            };
          }
          if (opts.user === undefined) throw new CliError(usage);
          const { user, grants } = await services.grants.revokeFor(opts.user, opts.client);
          const json = { user: user.uid, client_id: opts.client ?? null, revoked_grants: grants };
          const audit = { subject: user.uid, userId: user.id };
          return {
            json,
            audit,
            human: `revoked ${grants} grant(s) of ${user.uid}${opts.client ? ` to ${opts.client}` : ''}`,
          };
        },
        { write: { action: 'token.revoked', subject: opts.user ?? null, clientId: opts.client ?? null } },
      ),
    );
}
