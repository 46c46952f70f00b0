import { fileURLToPath } from 'node:url';
import { printRegistrants } from './print-registrants.js';
import { allEvents } from './queries.js';

/** Prints the events the token may see, then who registered for one of them (the first argument). */
export async function main(env: NodeJS.ProcessEnv, args: string[], print: (line: string) => void): Promise<void> {
  const url = env.ROSTER_URL ?? 'http://localhost:4000';
  const token = env.ROSTER_TOKEN;
  if (!token) throw new Error('Set ROSTER_TOKEN to a user access token or an app token (examples/README.md).');
  const roster = { url, token };

  print('Events:');
  const pageSize = Number(env.ROSTER_PAGE_SIZE ?? 100);
  for await (const event of allEvents(roster, pageSize)) print(`  ${event.slug}  ${event.visibility}  ${event.name}`);

  const slug = args[0];
  if (slug) await printRegistrants(roster, slug, print);
}

// Run as a program (not when a test imports it).
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main(process.env, process.argv.slice(2), (line) => console.log(line)).catch((err: Error) => {
    console.error(err.message);
    process.exitCode = 1;
  });
}
