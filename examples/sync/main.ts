import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { loadCopy, saveCopy, type LocalCopy } from './local-copy.js';
import { count, syncOnce } from './sync.js';

const USAGE = 'Usage: node dist/examples/sync/main.js EVENT_SLUG [--once] [--interval SECONDS]';

/**
 * Keeps a local copy of one event's registrations (a JSON file) current from the change feed: one catch-up
 * with `--once`, else one every `--interval` seconds (default 30) until stopped.
 */
export async function main(env: NodeJS.ProcessEnv, args: string[], print: (line: string) => void): Promise<void> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { once: { type: 'boolean', default: false }, interval: { type: 'string', default: '30' } },
  });
  const slug = positionals[0];
  const interval = Number(values.interval);
  if (positionals.length !== 1 || !slug || !(interval > 0)) throw new Error(USAGE);
  const token = env.ROSTER_TOKEN;
  if (!token) throw new Error('Set ROSTER_TOKEN to a token of one of the event’s organizers (examples/README.md).');
  const roster = { url: env.ROSTER_URL ?? 'http://localhost:4000', token };
  const file = env.ROSTER_SYNC_FILE ?? `roster-sync-${slug}.json`;
  const options = {
    pageSize: Number(env.ROSTER_PAGE_SIZE ?? 100),
    save: (copy: LocalCopy) => saveCopy(file, copy),
    print,
  };

  let stored = await loadCopy(file);
  if (!values.once) print(`Keeping ${file} current with ${slug} every ${interval} s (Ctrl-C stops)`);
  for (;;) {
    try {
      const { copy, report } = await syncOnce(roster, slug, stored, options);
      stored = copy;
      if (values.once || report.readWhole || report.applied > 0)
        print(`${slug}: ${count(copy)} in ${file}, up to date to ${copy.cursor}`);
    } catch (err) {
      if (values.once) throw err;
      // Polling: a failed catch-up (Roster restarting, the network) is tried again at the next tick.
      print(`Sync failed: ${(err as Error).message}`);
      stored = await loadCopy(file);
    }
    if (values.once) return;
    await sleep(interval * 1000);
  }
}

// Run as a program (not when a test imports it).
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main(process.env, process.argv.slice(2), (line) => console.log(line)).catch((err: Error) => {
    console.error(err.message);
    process.exitCode = 1;
  });
}
