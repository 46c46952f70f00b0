import type { Readable, Writable } from 'node:stream';
import { loadConfig, type Config } from '../config.js';
import { createDb, migrate, type Db } from '../stores/database.js';
import { databaseUnavailable } from '../stores/database-errors.js';
import { createServices, type Services } from '../services/services.js';
import { auditRecord, operatorActor, type AuditAction, type AuditEntry } from '../services/audit.js';
import { resetLinkFor } from '../http/reset-link.js';
import { accountTokensHref } from '../http/paths.js';
import { createStores, type Stores } from '../stores/stores.js';
import { jsonText, terminalText } from './table.js';
import { validateWebhookUrl } from '../webhooks/webhook-url.js';

export interface CliIo {
  stdout: Writable;
  stderr: Writable & { isTTY?: boolean };
  stdin: Readable;
  env: NodeJS.ProcessEnv;
}

/** A failure the operator can fix: printed as one line, exit code 1 (2 for usage). */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

export interface Env {
  config: Config;
  db: Db;
  /** For the identity provider (signing keys, tokens); the domain goes through `services`. */
  stores: Stores;
  services: Services;
}

export interface Output {
  /** Exactly what `--json` prints: one object. */
  json: Record<string, unknown>;
  /** A short line for people. */
  human: string;
  /** Set when the command ran but found a problem: printed after the output as `roster: …`, exit code 1. */
  failure?: string;
  /** A write's audit row, as the command's result names it (what it was done to). */
  audit?: Pick<AuditEntry, 'subject' | 'clientId' | 'userId'>;
}

/** A command that writes: its audit row, as known before it runs (what a failure's row says). */
export interface Write extends Pick<AuditEntry, 'subject' | 'clientId'> {
  action: AuditAction;
  /** False for `migrate`: the trail's table may not exist before it runs; its row follows it. */
  transaction?: boolean;
}

/** Runs one command against the configured database, printing its output; migrations are applied first. */
export function createRuntime(io: CliIo) {
  return async function run(
    opts: { json?: boolean },
    /** Resolves to undefined when the command's data already went to stdout (an export to `-`). */
    action: (env: Env) => Promise<Output | undefined>,
    { migrateFirst = true, write }: { migrateFirst?: boolean; write?: Write } = {},
  ): Promise<void> {
    const config = loadConfig(io.env);
    const db = createDb(config.databaseUrl, { poolMax: config.databasePoolMax });
    try {
      if (migrateFirst) await migrate(db);
      // The config carries the rules the services apply: production (https redirect URIs), MAX_APPS_PER_USER.
      const envOf = (stores: Stores): Env => ({
        config,
        db,
        stores,
        services: createServices(stores, config, {
          resetLink: resetLinkFor(config.baseUrl),
          personalTokensUrl: `${config.baseUrl}${accountTokensHref()}`,
          validateWebhookUrl: (url) =>
            validateWebhookUrl(url, { production: config.production, allowHosts: config.webhookAllowHosts }),
        }),
      });
      const stores = createStores(db);
      const out = write
        ? await audited(stores, write, operatorActor(io.env), (s) => action(envOf(s)))
        : await action(envOf(stores));
      if (!out) return;
      // Values in the output may be anyone's (an app's name): never a raw control character on a terminal.
      io.stdout.write(opts.json ? `${jsonText(out.json)}\n` : `${terminalText(out.human)}\n`);
      if (out.failure) throw new CliError(out.failure);
    } catch (err) {
      // A database that cannot be reached or opened: one line saying where (never the password) and why.
      throw databaseUnavailable(err, config.databaseUrl) ?? err;
    } finally {
      await db.destroy();
    }
  };
}

/**
 * Runs a write command and records it: in one transaction with its audit row, so both commit or neither; a
 * command that fails leaves a failure row instead (what it was asked to do, never what went wrong).
 */
async function audited(
  stores: Stores,
  write: Write,
  actor: ReturnType<typeof operatorActor>,
  action: (stores: Stores) => Promise<Output | undefined>,
): Promise<Output | undefined> {
  const { action: name, subject, clientId } = write;
  const row = (out: Output | undefined, outcome: 'success' | 'failure') =>
    auditRecord({ action: name, actor, subject, clientId, ...out?.audit, outcome }, Date.now());
  try {
    if (write.transaction === false) {
      const out = await action(stores);
      await stores.audit.add(row(out, 'success'));
      return out;
    }
    return await stores.transaction(async (s) => {
      // Written first: on SQLite this takes the one write lock now, so no read before it must upgrade later.
      const id = await s.audit.add(row(undefined, 'success'));
      const out = await action(s);
      await s.audit.replace(id, row(out, 'success'));
      return out;
    });
  } catch (err) {
    await stores.audit.add(row(undefined, 'failure')).catch(() => undefined);
    throw err;
  }
}

export type Run = ReturnType<typeof createRuntime>;

export const collect = (value: string, previous: string[]) => [...previous, value];

/** The first line of a stream (a secret piped in), without its line break. */
export async function readFirstLine(input: Readable): Promise<string> {
  let text = '';
  for await (const chunk of input) {
    text += String(chunk);
    if (text.includes('\n')) break;
  }
  return text.split(/\r?\n/)[0]!;
}
