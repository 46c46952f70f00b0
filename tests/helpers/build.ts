import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

// Only the tests that run the built server or CLI need dist/: they build it here, when it is missing
// or older than its sources, so `npm test -- one-file` compiles nothing it does not run.
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DIST = `${ROOT}dist/`;
/** What tsconfig.build.json compiles from: dist/ older than any of these is stale. */
const SOURCES = ['src', 'tsconfig.json', 'tsconfig.build.json', 'package.json'];
/** The entry points tests run: the oldest of them dates the last build (tsc rewrites every file). */
const ENTRIES = ['server.js', 'cli/index.js'];
/** Jest workers run test files side by side: one builds, the others wait for it. */
const LOCK = `${DIST}.build-lock`;
/** A cold tsc run takes 15–40 s on a busy machine: room for it, and for waiting on another worker's. */
const BUILD_TIMEOUT_MS = 180_000;

function newest(path: string): number {
  const stat = statSync(`${ROOT}${path}`);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(stat.mtimeMs, ...readdirSync(`${ROOT}${path}`).map((name) => newest(`${path}/${name}`)));
}

function upToDate(): boolean {
  try {
    const built = Math.min(...ENTRIES.map((entry) => statSync(`${DIST}${entry}`).mtimeMs));
    return built > Math.max(...SOURCES.map(newest));
  } catch {
    return false; // an entry point is missing
  }
}

/** The lock's taker is gone (a run stopped mid-build): the lock is stale. */
function lockIsStale(): boolean {
  try {
    const pid = Number(readFileSync(`${LOCK}/pid`, 'utf8'));
    process.kill(pid, 0);
    return false;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ESRCH') return true;
    // No pid yet: taken a moment ago, or its taker died right then (then the lock grows old).
    try {
      return Date.now() - statSync(LOCK).mtimeMs > 10_000;
    } catch {
      return false; // released meanwhile
    }
  }
}

function tryLock(): boolean {
  try {
    mkdirSync(LOCK);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    if (lockIsStale()) rmSync(LOCK, { recursive: true, force: true });
    return false;
  }
  writeFileSync(`${LOCK}/pid`, String(process.pid));
  return true;
}

function tsc(): Promise<void> {
  // tsc alone, not `npm run build`: codegen would rewrite src/generated while other workers compile it.
  const bin = `${ROOT}node_modules/typescript/bin/tsc`;
  const proc = spawn(process.execPath, [bin, '-p', 'tsconfig.build.json'], { cwd: ROOT, stdio: 'pipe' });
  let out = '';
  proc.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  proc.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
  return new Promise((resolve, reject) =>
    proc.once('close', (code) => {
      if (code === 0) return resolve();
      // tsc emits despite type errors: a failed build must not count as a fresh one next time.
      for (const entry of ENTRIES) rmSync(`${DIST}${entry}`, { force: true });
      reject(new Error(`tsc -p tsconfig.build.json failed:\n${out}`));
    }),
  );
}

/** Builds dist/ unless it is up to date; one build at a time across the run's workers. */
export async function ensureBuilt(): Promise<void> {
  mkdirSync(DIST, { recursive: true });
  const deadline = Date.now() + BUILD_TIMEOUT_MS;
  while (!upToDate()) {
    if (tryLock()) {
      try {
        if (!upToDate()) await tsc();
      } finally {
        rmSync(LOCK, { recursive: true, force: true });
      }
      return;
    }
    if (Date.now() > deadline) throw new Error(`dist/ is still not built, and ${LOCK} is held by another process`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

let built = false;

/** For a test file that runs dist/: builds it before the file's tests, when needed (see ensureBuilt). */
export function useBuiltDist(): void {
  beforeAll(async () => {
    await ensureBuilt();
    built = true;
  }, BUILD_TIMEOUT_MS);
}

/** The absolute path of a built file, in a test file that called useBuiltDist(). */
export function distPath(file: string): string {
  if (!built) throw new Error(`dist/${file} is used before it is built: call useBuiltDist() in the test file`);
  return `${DIST}${file}`;
}
