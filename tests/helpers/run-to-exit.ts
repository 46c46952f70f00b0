import { spawn } from 'node:child_process';
import { distPath } from './build.js';

export interface Exited {
  code: number | null;
  stdout: string;
  /** stderr, without the warning oidc-provider prints on import under a Node line that is not LTS yet. */
  stderr: string;
}

/**
 * Runs a built entry point (`server.js`, `cli/index.js`) as a real process expected to stop by itself, in
 * exactly the environment given (plus PATH); the test file calls useBuiltDist().
 */
export async function runToExit(entry: string, args: string[], env: NodeJS.ProcessEnv): Promise<Exited> {
  const proc = spawn(process.execPath, [distPath(entry), ...args], {
    // Not the test process's environment: its NODE_ENV=test (set by Jest) would hide the one under test.
    env: { PATH: process.env.PATH, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  proc.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  proc.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  // Generous: a loaded machine may take long to start; a process that hangs is killed and fails the test.
  const timer = setTimeout(() => proc.kill('SIGKILL'), 50_000);
  const code = await new Promise<number | null>((resolve) => proc.once('close', (c) => resolve(c)));
  clearTimeout(timer);
  const ours = stderr.replace(/^oidc-provider WARNING: Unsupported runtime\..*\n/m, '');
  return { code, stdout, stderr: ours };
}
