import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { SingleBar } from 'cli-progress';
import type { Command } from 'commander';
import { CliError, type CliIo, type Run } from './runtime.js';

async function open(file: string, io: CliIo): Promise<{ input: Readable; size?: number }> {
  if (file === '-') return { input: io.stdin };
  const info = await stat(file).catch(() => undefined);
  if (!info?.isFile()) throw new CliError(`cannot read ${file}: no such file`);
  return { input: createReadStream(file), size: info.size };
}

export function registerImport(program: Command, run: Run, io: CliIo): void {
  program
    .command('import')
    .description('bulk-load NDJSON users, events and registrations (all or nothing; - for stdin)')
    .argument('<file>', 'NDJSON file, or - for standard input')
    .option('--json', 'print one JSON object')
    .action((file: string, opts: { json?: boolean }) =>
      run(opts, async ({ services }) => {
        const { input, size } = await open(file, io);
        // A progress bar only for people watching a terminal, never in pipes or logs.
        const bar = io.stderr.isTTY && size ? new SingleBar({ stream: io.stderr, etaBuffer: 50 }) : undefined;
        bar?.start(size!, 0);
        let done = 0;
        try {
          const counts = await services.importer.run(input, (bytes) => {
            done += bytes;
            bar?.update(Math.min(done, size!));
          });
          return {
            json: { ...counts },
            human: `imported ${counts.users} users, ${counts.events} events, ${counts.registrations} registrations`,
          };
        } finally {
          bar?.stop();
        }
      }),
    );
}
