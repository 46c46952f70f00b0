import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import type { Command } from 'commander';
import { fileProgress } from './progress.js';
import { CliError, type CliIo, type Output, type Run } from './runtime.js';
import type { DryRunReport, ImportCounts } from '../services/import/import-report.js';

async function open(file: string, io: CliIo): Promise<{ input: Readable; size?: number }> {
  if (file === '-') return { input: io.stdin };
  const info = await stat(file).catch(() => undefined);
  if (!info?.isFile()) throw new CliError(`cannot read ${file}: no such file`);
  return { input: createReadStream(file), size: info.size };
}

const summary = (c: ImportCounts) => `${c.users} users, ${c.events} events, ${c.registrations} registrations`;

function dryRunOutput(report: DryRunReport): Output {
  const bad = report.errors.length + report.more;
  const lines = report.errors.map((e) => `line ${e.line}: ${e.reason}`);
  if (report.more > 0) lines.push(`… and ${report.more} more bad lines`);
  return {
    json: { ...report },
    human: report.ok ? `dry run: ${summary(report.counts)} would be imported` : lines.join('\n'),
    failure: report.ok ? undefined : `${bad} bad line${bad === 1 ? '' : 's'} (dry run: nothing written)`,
  };
}

export function registerImport(program: Command, run: Run, io: CliIo): void {
  program
    .command('import')
    .description('bulk-load NDJSON users, events and registrations (all or nothing; - for stdin)')
    .argument('<file>', 'NDJSON file, or - for standard input')
    .option('--dry-run', 'check every line and write nothing; lists the bad lines (the first 100)')
    .option('--json', 'print one JSON object')
    .action((file: string, opts: { json?: boolean; dryRun?: boolean }) =>
      run(
        opts,
        async ({ services }) => {
          const { input, size } = await open(file, io);
          const bar = fileProgress(io, size);
          const onProgress = bar ? (bytes: number, records: number) => bar.update(bytes, records) : undefined;
          try {
            if (opts.dryRun) return dryRunOutput(await services.importer.dryRun(input, onProgress));
            const counts = await services.importer.run(input, onProgress);
            return { json: { ...counts }, human: `imported ${summary(counts)}` };
          } finally {
            bar?.stop();
          }
        },
        { write: opts.dryRun ? undefined : { action: 'data.imported', subject: file } },
      ),
    );
}
