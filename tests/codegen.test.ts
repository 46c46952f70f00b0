import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

// The suite no longer runs codegen before it starts: this says when the committed types have gone stale.
const ROOT = fileURLToPath(new URL('../', import.meta.url));

test.each([
  ['src/generated', 'codegen.yml'],
  ['examples/client/generated', 'examples/codegen.ts'],
])('%s is what graphql-codegen makes of schema.graphql (--config %s)', async (_dir, config) => {
  // --check writes nothing; it exits 1 naming the stale files.
  const answer = await promisify(execFile)(
    process.execPath,
    [`${ROOT}node_modules/.bin/graphql-codegen`, '--config', config, '--check'],
    { cwd: ROOT },
  ).then(
    () => 'up to date',
    (err: { stdout: string; stderr: string }) => `${err.stdout}${err.stderr}`,
  );
  expect(answer).toBe('up to date');
});
