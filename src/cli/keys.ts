import type { Command } from 'commander';
import { rotateSigningKey } from '../identity/keys.js';
import type { Run } from './runtime.js';

export function registerKeys(program: Command, run: Run): void {
  const keys = program.command('keys').description('manage signing keys');
  keys
    .command('rotate')
    .description('add a new signing key; older keys stay published until their tokens expire')
    .option('--json', 'print one JSON object')
    .action((opts: { json?: boolean }) =>
      run(opts, async ({ stores }) => {
        const { kid, activeAt } = await rotateSigningKey(stores);
        const at = new Date(activeAt).toISOString();
        return {
          json: { kid, active_at: at },
          human: `new signing key ${kid}: running instances publish it within KEYS_RELOAD_INTERVAL and sign with it from ${at}`,
        };
      }),
    );
}
