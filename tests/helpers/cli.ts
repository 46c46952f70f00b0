import { PassThrough, Readable } from 'node:stream';
import { run } from '../../src/cli/main.js';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
  /** stdout parsed as the one JSON object `--json` promises. */
  json: Record<string, unknown>;
}

/** Runs the CLI in-process with its own streams and environment. */
export async function cli(
  databaseUrl: string,
  args: string[],
  stdin = '',
  env: NodeJS.ProcessEnv = {},
): Promise<CliResult> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  stdout.on('data', (c: Buffer) => out.push(c));
  stderr.on('data', (c: Buffer) => err.push(c));
  const code = await run(args, {
    stdout,
    stderr,
    stdin: Readable.from([stdin]),
    env: { DATABASE_URL: databaseUrl, NODE_ENV: 'test', ...env },
  });
  const text = Buffer.concat(out).toString();
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    // Not JSON: the assertions on stdout say what was expected.
  }
  return { code, stdout: text, stderr: Buffer.concat(err).toString(), json };
}

/** The arguments of `roster app create` for an owner and one redirect URI, then any further flags. */
export const appCreateArgs = (owner: string, name: string, redirectUri: string, ...more: string[]): string[] => [
  'app',
  'create',
  '--owner',
  owner,
  '--name',
  name,
  '--redirect-uri',
  redirectUri,
  ...more,
];
