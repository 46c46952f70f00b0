import { readFileSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
import { ConfigError } from '../config.js';
import { DomainError, InvalidInput } from '../services/errors.js';
import { DatabaseUnavailable } from '../stores/database-errors.js';
import { registerApp } from './app.js';
import { registerAudit } from './audit.js';
import { registerEvent } from './event.js';
import { registerExport } from './export.js';
import { registerImport } from './import.js';
import { registerKeys } from './keys.js';
import { registerMigrate } from './migrate.js';
import { registerRegistration } from './registration.js';
import { CliError, createRuntime, type CliIo } from './runtime.js';
import { registerSeed } from './seed.js';
import { registerToken } from './token.js';
import { registerPat } from './pat.js';
import { registerUser } from './user.js';
import { registerWebhook } from './webhook.js';
import { terminalText } from './table.js';
import { printable } from '../lib/text.js';

// src/cli/ and dist/cli/ both sit two levels below the package root.
const VERSION = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

/** The whole CLI: parses argv, runs one command, returns the exit code. Never throws. */
export async function run(argv: string[], io: CliIo): Promise<number> {
  const program = new Command('roster')
    .description('Roster operator CLI (configuration from the environment, as for the server)')
    .exitOverride()
    .showHelpAfterError(false)
    .configureOutput({
      writeOut: (s) => io.stdout.write(s),
      writeErr: (s) => io.stderr.write(s),
      // Commander quotes what was typed (an unknown option): written out visibly, like every other message.
      outputError: (s, write) => write(terminalText(`roster: ${s.replace(/^error: /, '')}`)),
    });
  // `--version --json` is one JSON object like every other command; commander's --version prints plain text.
  if (argv.length === 2 && argv.includes('--json') && (argv.includes('--version') || argv.includes('-V'))) {
    io.stdout.write(`${JSON.stringify({ version: VERSION })}\n`);
    return 0;
  }
  program.version(VERSION, '-V, --version', 'print the version (with --json: one JSON object)');
  const runtime = createRuntime(io);
  registerMigrate(program, runtime);
  registerSeed(program, runtime);
  registerUser(program, runtime, io);
  registerEvent(program, runtime);
  registerRegistration(program, runtime);
  registerApp(program, runtime);
  registerWebhook(program, runtime);
  registerToken(program, runtime, io);
  registerPat(program, runtime);
  registerKeys(program, runtime);
  registerImport(program, runtime, io);
  registerExport(program, runtime, io);
  registerAudit(program, runtime, io);
  try {
    await program.parseAsync(argv, { from: 'user' });
    return 0;
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode === 0 ? 0 : 2;
    // One line, bounded, nothing a terminal would act on: messages may quote input (a client id, a file name).
    io.stderr.write(`roster: ${printable(describe(err), MAX_ERROR_LENGTH)}\n`);
    return err instanceof CliError ? err.exitCode : 1;
  }
}

/** Characters of an error message printed at most: any value it quotes may be huge. */
const MAX_ERROR_LENGTH = 1000;

/** One line for the operator; never a stack trace. */
function describe(err: unknown): string {
  // Options are named after the services' fields: `starts_at` is --starts-at.
  if (err instanceof InvalidInput && err.field) return `--${err.field.replaceAll('_', '-')} ${err.reason}`;
  // A ConfigError names its variable first: the same line the server prints (src/server.ts).
  // A DatabaseUnavailable (src/cli/runtime.ts) says where the database is, never its password.
  if (
    err instanceof CliError ||
    err instanceof DomainError ||
    err instanceof ConfigError ||
    err instanceof DatabaseUnavailable
  ) {
    return err.message;
  }
  const message = err instanceof Error ? err.message : String(err);
  if (/UNIQUE|duplicate key/i.test(message)) return 'that record already exists';
  return message.split('\n')[0]!;
}
