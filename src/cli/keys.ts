import type { Command } from 'commander';
import { rotateSigningKey, signingKeyStatus } from '../services/signing-keys.js';
import type { Run } from './runtime.js';
import { isoOrNull, table } from './table.js';

export function registerKeys(program: Command, run: Run): void {
  const keys = program.command('keys').description('manage signing keys');
  keys
    .command('rotate')
    .description('add a new signing key; older keys stay published until their tokens expire')
    .option('--json', 'print one JSON object')
    .action((opts: { json?: boolean }) =>
      run(
        opts,
        async ({ stores }) => {
          const { kid, activeAt } = await rotateSigningKey(stores);
          const at = new Date(activeAt).toISOString();
          return {
            json: { kid, active_at: at },
            human: `new signing key ${kid}: running instances publish it within KEYS_RELOAD_INTERVAL and sign with it from ${at}`,
          };
        },
        { write: { action: 'keys.rotated' } },
      ),
    );
  keys
    .command('list')
    .description('list signing keys, newest first, and which one signs (private keys are never printed)')
    .option('--json', 'print one JSON object')
    .action((opts: { json?: boolean }) =>
      run(opts, async ({ stores }) => {
        const keys = (await signingKeyStatus(stores)).map((k) => ({
          kid: k.kid,
          status: k.status,
          created_at: isoOrNull(k.createdAt),
          signs_from: isoOrNull(k.signsFrom),
        }));
        const rows = keys.map((k) => [k.kid, k.status, k.created_at, k.signs_from]);
        const human = rows.length
          ? table(['KID', 'STATUS', 'CREATED', 'SIGNS FROM'], rows)
          : 'no signing keys yet: the server makes the first on its first start';
        return { json: { keys }, human };
      }),
    );
}
