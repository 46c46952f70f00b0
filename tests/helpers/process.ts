import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { distPath } from './build.js';

export async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const { port } = srv.address() as { port: number };
  await new Promise<void>((resolve) => srv.close(() => resolve()));
  return port;
}

export interface ServerProcess {
  proc: ChildProcess;
  url: string;
  /** Everything the process wrote to stdout and stderr so far. */
  output(): string;
  /** Only what it wrote to stdout. */
  stdout(): string;
}

/**
 * Starts the built server (`npm start`'s dist/server.js) as a real process and waits until it is ready;
 * the test file calls useBuiltDist().
 */
export async function spawnServer(env: NodeJS.ProcessEnv): Promise<ServerProcess> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const proc = spawn(process.execPath, [distPath('server.js')], {
    // No SHUTDOWN_DELAY_MS unless a test asks for one: SIGTERM in afterAll stays quick.
    env: {
      ...process.env,
      HOST: '127.0.0.1',
      PORT: String(port),
      BASE_URL: url,
      LOG_LEVEL: 'silent',
      SHUTDOWN_DELAY_MS: '0',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let stdout = '';
  proc.stdout.on('data', (chunk: Buffer) => ((out += chunk.toString()), (stdout += chunk.toString())));
  proc.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
  let exit: number | null | undefined;
  proc.once('exit', (code) => (exit = code));
  for (let i = 0; i < 300; i += 1) {
    if (exit !== undefined) throw new Error(`the server exited with code ${exit} before it was ready:\n${out}`);
    const ready = await fetch(`${url}/readyz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ready) return { proc, url, output: () => out, stdout: () => stdout };
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  proc.kill('SIGKILL');
  throw new Error(`server on port ${port} did not become ready:\n${out}`);
}

/** Stops spawned servers with SIGTERM and waits until each has exited (one already gone is skipped). */
export async function stopServers(servers: ServerProcess[]): Promise<void> {
  await Promise.all(
    servers
      .filter(({ proc }) => proc.exitCode === null && proc.signalCode === null)
      .map(({ proc }) => {
        const exited = new Promise((resolve) => proc.once('exit', resolve));
        proc.kill('SIGTERM');
        return exited;
      }),
  );
}
