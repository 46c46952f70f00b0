import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { PassThrough, Readable } from 'node:stream';
import { parse } from 'dotenv';
import { run } from '../src/cli/main.js';

// Keeps the README and every page of docs/ true: the settings, commands, links and source paths they name
// exist, they cite nothing a reader cannot follow, and the README stays short enough to read.
// (`docker compose exec roster node …` names the compose service, not the CLI.)
const root = new URL('../', import.meta.url);
const read = (path: string | URL) => readFileSync(new URL(path, root), 'utf8');

/** The pages kept true: the README and the manual. */
const PAGES = [
  'README.md',
  ...readdirSync(new URL('docs/', root))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];
/** Pages whose links are checked too; what else they say their own tests keep (examples.test.ts) or is history. */
const LINKED_ONLY = ['examples/README.md', 'bench/README.md'];
const README_MAX_LINES = 350;

const settings = Object.keys(parse(read('.env.example')));
/**
 * Named in the pages without being Roster settings: compose's database password, a shell variable, Node's
 * options, the tests' database and browser, the benchmark's rounds, the placeholders of a client's code,
 * the OpenTelemetry variables the exporter reads itself.
 */
const NOT_SETTINGS = [
  'POSTGRES_PASSWORD',
  'RESTORED_URL',
  'NODE_OPTIONS',
  'TEST_DATABASE_URL',
  'CHROMIUM_PATH',
  'BENCH_ROUNDS',
  'CLIENT_ID',
  'CLIENT_SECRET',
  'DELIVERY_ID',
  'ROSTER_WEBHOOK_SECRET',
  // Standard OpenTelemetry variables that the OTLP exporter and the resource detector read themselves.
  'OTEL_EXPORTER_OTLP_HEADERS',
  'OTEL_EXPORTER_OTLP_TIMEOUT',
  'OTEL_EXPORTER_OTLP_COMPRESSION',
  'OTEL_RESOURCE_ATTRIBUTES',
];
/** The error codes the API answers with (`extensions.code`): named in the pages, never settings. */
const ERROR_CODES = [
  'BAD_REQUEST',
  'BAD_USER_INPUT',
  'GRAPHQL_PARSE_FAILED',
  'GRAPHQL_VALIDATION_FAILED',
  'HEADERS_TOO_LARGE',
  'INTERNAL_SERVER_ERROR',
  'PAYLOAD_TOO_LARGE',
  'PERSISTED_QUERY_NOT_FOUND',
  'QUERY_TOO_COMPLEX',
  'RATE_LIMITED',
  'REQUEST_TIMEOUT',
  'REQUEST_TOO_SLOW',
  'UNSUPPORTED_MEDIA_TYPE',
  'CHANGES_EXPIRED',
  'TOO_MANY_STREAMS',
  'SHUTTING_DOWN',
];
/** The API's change types (`ChangeType`): enum values, never settings. */
const CHANGE_TYPES = [
  'REGISTRATION_CREATED',
  'REGISTRATION_DELETED',
  'REGISTRANT_UPDATED',
  'EVENT_CREATED',
  'EVENT_UPDATED',
  'EVENT_DELETED',
];
/** The folders of src/: a path such as `http/cors.ts` in the pages is one of src/. */
const SRC_FOLDERS = readdirSync(new URL('src/', root), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name);

/** Markdown less its fenced code blocks: a `# comment` in a shell block is no heading, nor a `](` a link. */
const prose = (markdown: string) => markdown.replace(/^ *```[^\n]*\n[\s\S]*?^ *```$/gm, '');

/** GitHub's anchor for a heading: lowercase, punctuation other than - and _ dropped, spaces as hyphens. */
const anchor = (heading: string) =>
  heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
const anchors = (markdown: string) =>
  new Set([...prose(markdown).matchAll(/^#{1,6} (.+)$/gm)].map((m) => anchor(m[1]!)));

const namesIn = (text: string) => new Set(text.match(/\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b/g));

/** Upper-case names with an underscore that are neither a setting in .env.example nor allowed above. */
const unknownSettings = (text: string) =>
  [...namesIn(text)].filter(
    (name) =>
      !settings.includes(name) &&
      !NOT_SETTINGS.includes(name) &&
      !ERROR_CODES.includes(name) &&
      !CHANGE_TYPES.includes(name),
  );

/** Every `roster <verb> [<sub>]` (or `node dist/cli/index.js …`) a text runs, as [verb, sub]. */
const commandsRun = (text: string) =>
  [...text.matchAll(/(?:(?<!exec )\broster|node dist\/cli\/index\.js) ([a-z][a-z-]*)(?: ([a-z][a-z-]*))?/g)].map(
    ([, verb, sub]) => [verb!, sub] as const,
  );

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

const subcommands = new Map<string, Promise<string[]>>();
const subcommandsOf = (verb: string) => {
  if (!subcommands.has(verb)) subcommands.set(verb, help(verb ? [verb] : []).then(commandsIn));
  return subcommands.get(verb)!;
};

/** The commands a text runs that the CLI does not have, as `roster verb [sub]`. */
async function unknownCommands(text: string): Promise<string[]> {
  const verbs = await subcommandsOf('');
  const unknown: string[] = [];
  for (const [verb, sub] of commandsRun(text)) {
    if (!verbs.includes(verb)) unknown.push(`roster ${verb}`);
    else if (sub !== undefined && !(await subcommandsOf(verb)).includes(sub)) unknown.push(`roster ${verb} ${sub}`);
  }
  return unknown;
}

/** The relative links of a page (`[text](target)`, images included), outside code blocks. */
const relativeLinks = (markdown: string) =>
  [...prose(markdown).matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!).filter((t) => !/^[a-z][a-z+.-]*:/i.test(t));

/** Links of `page` (a path from the repository root) to a file that is not there, or to a heading it lacks. */
function brokenLinks(page: string, markdown: string): string[] {
  return relativeLinks(markdown).filter((target) => {
    const [file, id] = target.split('#');
    const url = new URL(file || page.split('/').pop()!, new URL(page, root));
    if (!url.href.startsWith(root.href) || !existsSync(url)) return true;
    if (id === undefined) return false;
    const text = file ? (url.pathname.endsWith('.md') ? read(url) : '') : markdown;
    return !anchors(text).has(id);
  });
}

/** References a reader of the repository cannot follow: a private spec's sections, an issue tracker's numbers. */
const unfollowable = (text: string) =>
  [...text.matchAll(/\bSPEC\s*§\s*[\d.]*|\bissues?\s+#?\d+|\(#\d+\)/gi)].map((m) => m[0].trim());

/** Paths in backticks into the repository's source folders, or (as `http/cors.ts`) into src/. */
function sourcePaths(text: string): string[] {
  const folders = ['.ci', 'bench', 'docs', 'examples', 'scripts', 'seeds', 'src', 'tests'];
  return [...text.matchAll(/`([.\w-]+)\/([\w./-]*)`/g)]
    .map(([, first, rest]) =>
      folders.includes(first!) ? `${first}/${rest}` : SRC_FOLDERS.includes(first!) ? `src/${first}/${rest}` : '',
    )
    .filter((path) => path !== '');
}
const missingPaths = (text: string) => sourcePaths(text).filter((path) => !existsSync(new URL(path, root)));

const lineCount = (text: string) => text.trimEnd().split('\n').length;

const pages = PAGES.map((page) => [page, read(page)] as const);

test('the pages are the README and the manual', () => {
  expect(PAGES).toEqual(
    expect.arrayContaining([
      'README.md',
      'docs/api.md',
      'docs/identity.md',
      'docs/cli.md',
      'docs/operations.md',
      'docs/security.md',
      'docs/performance.md',
      'docs/architecture.md',
    ]),
  );
});

test.each(pages)('%s: every environment variable it names is a setting in .env.example', (_page, text) => {
  expect(unknownSettings(text)).toEqual([]);
});

test('every name allowed beside the settings is named by some page', () => {
  const named = new Set(pages.flatMap(([, text]) => [...namesIn(text)]));
  expect(named.size).toBeGreaterThan(20);
  expect([...NOT_SETTINGS, ...ERROR_CODES, ...CHANGE_TYPES].filter((name) => !named.has(name))).toEqual([]);
});

test.each(pages)('%s: every CLI command it runs exists', async (_page, text) => {
  expect(await unknownCommands(text)).toEqual([]);
});

test('the pages run CLI commands (the check above has something to check)', () => {
  expect(pages.flatMap(([, text]) => commandsRun(text)).length).toBeGreaterThan(30);
});

test.each([...pages, ...LINKED_ONLY.map((page) => [page, read(page)] as const)])(
  '%s: every relative link points at a file, and its #anchor at a heading there',
  (page, text) => {
    expect(brokenLinks(page, text)).toEqual([]);
  },
);

test('every page of docs/ is linked from the README', () => {
  const linked = relativeLinks(read('README.md')).map((target) => target.split('#')[0]);
  expect(PAGES.filter((page) => page !== 'README.md' && !linked.includes(page))).toEqual([]);
  expect(linked).toEqual(expect.arrayContaining(LINKED_ONLY));
});

test.each(pages)('%s: cites no SPEC section and no issue number', (_page, text) => {
  expect(unfollowable(text)).toEqual([]);
});

test('no comment in the code cites a SPEC section or an issue number', () => {
  const files = ['src', 'tests', 'bench', 'scripts', 'examples'].flatMap((folder) =>
    readdirSync(new URL(`${folder}/`, root), { recursive: true, encoding: 'utf8' })
      .filter((f) => /\.(ts|mjs|js|sh)$/.test(f) && !f.startsWith('generated') && !f.includes('node_modules'))
      .map((f) => `${folder}/${f}`),
  );
  expect(files.length).toBeGreaterThan(200);
  // This file holds the pattern and its own examples.
  const cited = files
    .filter((f) => f !== 'tests/docs.test.ts')
    .flatMap((f) => unfollowable(read(f)).map((ref) => `${f}: ${ref}`));
  expect(cited).toEqual([]);
});

test.each(pages)('%s: every source path it names exists', (_page, text) => {
  expect(missingPaths(text)).toEqual([]);
});

test('the pages name source paths (the check above has something to check)', () => {
  expect(pages.flatMap(([, text]) => sourcePaths(text)).length).toBeGreaterThan(40);
});

test(`the README has at most ${README_MAX_LINES} lines, and its first screen says how to start`, () => {
  const readme = read('README.md');
  expect(lineCount(readme)).toBeLessThanOrEqual(README_MAX_LINES);
  expect(readme.slice(0, 3000)).toContain('npm start');
  // .ci/run runs the README's test command.
  expect(readme.slice(0, 3000)).toContain('npm run test:all');
  expect(read('.ci/run')).toContain('npm run test:all');
});

test('each check finds what it guards against', async () => {
  expect(unknownSettings('set `ROSTER_COLOUR=red` and `PORT=4000`')).toEqual(['ROSTER_COLOUR']);
  expect(await unknownCommands('`npx roster user frobnicate`, `roster frob`, `roster user list`')).toEqual([
    'roster user frobnicate',
    'roster frob',
  ]);
  expect(
    brokenLinks(
      'docs/api.md',
      '[a](security.md#no-such-heading) [b](nowhere.md) [c](#no-such) [d](../../outside.md) ' +
        '[ok](#queries) [ok](../README.md#demo-data) [ok](consent.png) [ok](https://example.org/#x)\n' +
        '## Queries\n' +
        '```sh\necho "[not a link](nowhere.md)"\n```',
    ),
  ).toEqual(['security.md#no-such-heading', 'nowhere.md', '#no-such', '../../outside.md']);
  expect(unfollowable('as SPEC §4.2 says (issue 16), see issue #3 and (#12); RFC 6749 §4.1 is fine')).toEqual([
    'SPEC §4.2',
    'issue 16',
    'issue #3',
    '(#12)',
  ]);
  expect(
    missingPaths('`src/nowhere.ts`, `http/nowhere.ts`, `http/cors.ts`, `tests/docs.test.ts`, `dist/x.js`'),
  ).toEqual(['src/nowhere.ts', 'src/http/nowhere.ts']);
  expect(lineCount('line\n'.repeat(README_MAX_LINES + 1))).toBeGreaterThan(README_MAX_LINES);
});
