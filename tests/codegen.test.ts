import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

// The suite no longer runs codegen before it starts: this says when the committed types have gone stale.
const ROOT = fileURLToPath(new URL('../', import.meta.url));

test('src/generated is what `npm run codegen` makes of schema.graphql', async () => {
  // --check writes nothing; it exits 1 naming the stale files.
  const answer = await promisify(execFile)(
    process.execPath,
    [`${ROOT}node_modules/.bin/graphql-codegen`, '--config', 'codegen.yml', '--check'],
    { cwd: ROOT },
  ).then(
    () => 'up to date',
    (err: { stdout: string; stderr: string }) => `${err.stdout}${err.stderr}`,
  );
  expect(answer).toBe('up to date');
});
