import { readFileSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
import { ConfigError } from '../config.js';
import { DomainError, InvalidInput } from '../services/errors.js';
import { registerApp } from './app.js';
import { registerEvent } from './event.js';
import { registerExport } from './export.js';
import { registerImport } from './import.js';
import { registerKeys } from './keys.js';
import { registerMigrate } from './migrate.js';
import { registerRegistration } from './registration.js';
import { CliError, createRuntime, type CliIo } from './runtime.js';
import { registerSeed } from './seed.js';
import { registerToken } from './token.js';
import { registerUser } from './user.js';

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
      outputError: (s, write) => write(`roster: ${s.replace(/^error: /, '')}`),
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
  registerToken(program, runtime, io);
  registerKeys(program, runtime);
  registerImport(program, runtime, io);
  registerExport(program, runtime, io);
  try {
    await program.parseAsync(argv, { from: 'user' });
    return 0;
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode === 0 ? 0 : 2;
    io.stderr.write(`roster: ${describe(err)}\n`);
    return err instanceof CliError ? err.exitCode : 1;
  }
}

/** One line for the operator; never a stack trace. */
function describe(err: unknown): string {
  // Options are named after the services' fields: `starts_at` is --starts-at.
  if (err instanceof InvalidInput && err.field) return `--${err.field.replaceAll('_', '-')} ${err.reason}`;
  // A ConfigError names its variable first: the same line the server prints (src/server.ts).
  if (err instanceof CliError || err instanceof DomainError || err instanceof ConfigError) return err.message;
  const message = err instanceof Error ? err.message : String(err);
  if (/UNIQUE|duplicate key/i.test(message)) return 'that record already exists';
  if (/ECONNREFUSED|ENOTFOUND|password authentication/i.test(message)) return `database unreachable: ${message}`;
  return message.split('\n')[0]!;
}
