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
        const { kid } = await rotateSigningKey(stores);
        return { json: { kid }, human: `new signing key ${kid}; restart instances to sign with it` };
      }),
    );
}
