import { readFileSync } from 'node:fs';
import { PassThrough, Readable } from 'node:stream';
import { parse } from 'dotenv';
import { run } from '../src/cli/main.js';

// Keeps docs/operations.md honest: the settings, commands and links it names exist.
// (`docker compose exec roster node …` names the compose service, not the CLI.)
const guide = readFileSync(new URL('../docs/operations.md', import.meta.url), 'utf8');
const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
const settings = Object.keys(parse(readFileSync(new URL('../.env.example', import.meta.url), 'utf8')));
/** Named in the guide without being Roster settings: compose's database password, a shell variable, Node's options. */
const NOT_SETTINGS = ['POSTGRES_PASSWORD', 'RESTORED_URL', 'NODE_OPTIONS'];

async function help(argv: string[]): Promise<string> {
  const stdout = new PassThrough();
  let text = '';
  stdout.on('data', (chunk: Buffer) => (text += chunk.toString()));
  const code = await run([...argv, '--help'], {
    stdout,
    stderr: new PassThrough(),
    stdin: Readable.from([]),
    env: {},
  });
  expect(code).toBe(0);
  return text;
}

/** The command names a `--help` lists under "Commands:". */
const commandsIn = (text: string) =>
  (text.split('Commands:\n')[1] ?? '').split('\n').flatMap((line) => /^ {2}([a-z][a-z-]*)/.exec(line)?.[1] ?? []);

/** GitHub's anchor for a heading: lowercase, punctuation other than - and _ dropped, spaces as hyphens. */
const anchor = (heading: string) =>
  heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
const anchors = (markdown: string) => new Set([...markdown.matchAll(/^#{1,6} (.+)$/gm)].map((m) => anchor(m[1]!)));

test('every environment variable the guide names is a setting in .env.example', () => {
  const named = new Set(guide.match(/\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b/g));
  expect(named.size).toBeGreaterThan(5);
  expect([...named].filter((name) => !settings.includes(name) && !NOT_SETTINGS.includes(name))).toEqual([]);
  expect(NOT_SETTINGS.filter((name) => !named.has(name))).toEqual([]);
});

test('every CLI command the guide runs exists', async () => {
  const used = [
    ...guide.matchAll(/(?:(?<!exec )\broster|node dist\/cli\/index\.js) ([a-z][a-z-]*)(?: ([a-z][a-z-]*))?/g),
  ];
  expect(used.length).toBeGreaterThan(3);
  const verbs = commandsIn(await help([]));
  for (const [, verb, sub] of used) {
    expect(verbs).toContain(verb);
    if (sub !== undefined) expect(commandsIn(await help([verb!]))).toContain(sub);
  }
});

test('every link into the README or the guide points at a heading', () => {
  const links = [...guide.matchAll(/\]\((\.\.\/README\.md)?#([^)]+)\)/g)];
  expect(links.length).toBeGreaterThan(3);
  const targets = { readme: anchors(readme), guide: anchors(guide) };
  const broken = links.filter(([, file, id]) => !(file ? targets.readme : targets.guide).has(id!)).map(([l]) => l);
  expect(broken).toEqual([]);
});
