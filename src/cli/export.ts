import { open, rename, rm } from 'node:fs/promises';
import type { Command } from 'commander';
import { CliError, type CliIo, type Run } from './runtime.js';

export function registerExport(program: Command, run: Run, io: CliIo): void {
  program
    .command('export')
    .description('write every user, event and registration as NDJSON that `roster import` reads (- for stdout)')
    .argument('[file]', 'NDJSON file to write, or - for standard output (the default)', '-')
    .option('--json', 'print one JSON object (needs a FILE: stdout carries the records otherwise)')
    .action((file: string, opts: { json?: boolean }) => {
      if (file === '-' && opts.json) throw new CliError('--json needs a FILE: standard output carries the records', 2);
      return run(opts, async ({ services }) => {
        if (file === '-') {
          await services.exporter.run(io.stdout, { end: false }).catch((err: NodeJS.ErrnoException) => {
            // The reader went away (`| head`): the end of the output, as for any Unix filter, not a failure.
            if (err.code !== 'EPIPE') throw err;
          });
          return undefined;
        }
        // Written beside the target and renamed at the end: a failed export never leaves a truncated file.
        const partial = `${file}.partial-${process.pid}`;
        // Opened before the export starts, so a bad path fails at once rather than mid-stream.
        const handle = await open(partial, 'w').catch((err: NodeJS.ErrnoException) => {
          throw new CliError(`cannot write ${file}: ${err.code ?? err.message}`);
        });
        try {
          const counts = await services.exporter.run(handle.createWriteStream());
          await rename(partial, file);
          return {
            json: { ...counts, file },
            human: `exported ${counts.users} users, ${counts.events} events, ${counts.registrations} registrations to ${file}`,
          };
        } catch (err) {
          await rm(partial, { force: true });
          throw err;
        }
      });
    });
}
