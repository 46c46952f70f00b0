import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Command } from 'commander';
import type { StoredAudit } from '../stores/audit-store.js';
import type { CliIo, Run } from './runtime.js';
import { jsonText, terminalText } from './table.js';

type Listed = StoredAudit & { uid: string | null };

/** One row as `--json` prints it: one object a line. */
const auditJson = (r: Listed) => ({
  id: r.id,
  at: new Date(r.at).toISOString(),
  actor_type: r.actorType,
  actor: r.actor,
  user: r.uid,
  action: r.action,
  subject: r.subject,
  app: r.clientId,
  address: r.address,
  user_agent: r.userAgent,
  outcome: r.outcome,
  count: r.count,
});

const humanLine = (r: Listed) =>
  [
    new Date(r.at).toISOString(),
    r.action,
    r.outcome,
    r.count > 1 ? `x${r.count}` : '',
    `by ${r.actor ?? r.actorType}`,
    r.subject ? `on ${r.subject}` : '',
    r.clientId ? `app ${r.clientId}` : '',
    r.address ? `from ${r.address}` : '',
  ]
    .filter(Boolean)
    .join(' ');

interface AuditListOptions {
  json?: boolean;
  since?: string;
  user?: string;
  action?: string;
}

export function registerAudit(program: Command, run: Run, io: CliIo): void {
  const audit = program.command('audit').description('read the audit trail');
  audit
    .command('list')
    .description('stream the audit trail, oldest first (with --json: NDJSON, one object a line)')
    .option('--since <time>', 'only rows from this ISO 8601 time on, e.g. 2026-01-31T09:00:00Z')
    .option('--user <user>', 'only rows about this user (email or uid)')
    .option('--action <action>', 'only this action, e.g. sign_in.failed')
    .option('--json', 'print NDJSON: one JSON object a line')
    .action((opts: AuditListOptions) =>
      run(opts, async ({ services }) => {
        // Checked before anything is printed: a bad filter is one line on stderr and exit code 1.
        const filter = await services.audit.filter(opts);
        const rows = services.audit.list(filter);
        async function* lines() {
          for await (const row of rows)
            yield `${opts.json ? jsonText(auditJson(row)) : terminalText(humanLine(row))}\n`;
        }
        // Streamed with backpressure: a page of rows in memory at a time, whatever the trail's size.
        await pipeline(Readable.from(lines()), io.stdout, { end: false }).catch((err: NodeJS.ErrnoException) => {
          // The reader went away (`| head`): the end of the output, as for any Unix filter, not a failure.
          if (err.code !== 'EPIPE') throw err;
        });
        return undefined;
      }),
    );
}
