import type { Command } from 'commander';
import { parseDuration } from '../services/personal-token-service.js';
import type { PersonalTokenRow } from '../stores/personal-token-store.js';
import { CliError, type Run } from './runtime.js';
import { isoOrNull, table } from './table.js';

const tokenJson = (t: PersonalTokenRow) => ({
  id: t.id,
  name: t.name,
  scopes: t.scopes,
  created_at: isoOrNull(t.createdAt),
  last_used_at: isoOrNull(t.lastUsedAt),
  expires_at: isoOrNull(t.expiresAt),
  expired: t.expiresAt <= Date.now(),
});

/** A token id as typed: a whole number, else a one-line refusal. */
function tokenId(raw: string): number {
  if (!/^[1-9]\d{0,9}$/.test(raw))
    throw new CliError(`no personal access token ${JSON.stringify(raw.slice(0, 40))}: ids are whole numbers`);
  return Number(raw);
}

export function registerPat(program: Command, run: Run): void {
  const pat = program.command('pat').description("manage users' personal access tokens");
  pat
    .command('create')
    .description('make a personal access token for a user; the token is shown once')
    .requiredOption('--user <user>', 'the user (email or uid)')
    .requiredOption('--name <name>', 'what the token is for')
    .option('--scope <scopes>', 'space-separated scopes (openid, email, profile)', 'openid')
    .option('--expires-in <duration>', 'lifetime: a number and s, m, h or d, at most 365d', '30d')
    .option('--json', 'print one JSON object')
    .action((opts: { json?: boolean; user: string; name: string; scope: string; expiresIn: string }) =>
      run(
        opts,
        async ({ services }) => {
          const user = await services.users.getByKey(opts.user);
          const made = await services.personalTokens.create(user, {
            name: opts.name,
            scopes: opts.scope.split(/\s+/),
            expiresIn: parseDuration(opts.expiresIn, '--expires-in'),
          });
          const expiresAt = isoOrNull(made.row.expiresAt);
          return {
            json: { token: made.token, id: made.row.id, expires_at: expiresAt },
            audit: { subject: made.row.name, userId: user.id },
            human: [
              `created personal access token ${made.row.id} for ${user.uid}, until ${expiresAt}`,
              `token (shown once): ${made.token}`,
            ].join('\n'),
          };
        },
        { write: { action: 'personal_token.created', subject: opts.user } },
      ),
    );
  pat
    .command('list')
    .description("a user's personal access tokens (never their values), newest first")
    .requiredOption('--user <user>', 'the user (email or uid)')
    .option('--json', 'print one JSON object')
    .action((opts: { json?: boolean; user: string }) =>
      run(opts, async ({ services }) => {
        const user = await services.users.getByKey(opts.user);
        const tokens = (await services.personalTokens.list(user.id)).map(tokenJson);
        const rows = tokens.map((t) => [
          t.id,
          t.name,
          t.scopes.join(' '),
          t.created_at,
          t.last_used_at ?? 'never',
          t.expires_at,
        ]);
        return {
          json: { user: user.uid, tokens },
          human: tokens.length
            ? table(['id', 'name', 'scopes', 'created', 'last used', 'expires'], rows)
            : `${user.uid} has no personal access tokens`,
        };
      }),
    );
  pat
    .command('revoke')
    .description('delete a personal access token: it stops working at once, at every instance')
    .argument('<id>', 'the token id (pat list shows it)')
    .option('--json', 'print one JSON object')
    .action((raw: string, opts: { json?: boolean }) =>
      run(
        opts,
        async ({ services }) => {
          const gone = await services.personalTokens.revoke(tokenId(raw), undefined);
          return {
            json: { id: gone.id, revoked: true },
            audit: { subject: gone.name, userId: gone.userId },
            human: `revoked personal access token ${gone.id} (${gone.name})`,
          };
        },
        { write: { action: 'personal_token.revoked', subject: raw } },
      ),
    );
}
