// `npm install` builds (codegen + TypeScript) so `npm start` just runs, except where it cannot: a
// production install without dev dependencies, or the Dockerfile's dependency layer before the sources.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const why = !existsSync('src')
  ? 'no sources yet'
  : !existsSync('node_modules/.bin/graphql-codegen')
    ? 'no dev dependencies (a production install: build where they are, then prune)'
    : undefined;
if (why) {
  process.stderr.write(`roster: build skipped on install: ${why}\n`);
} else {
  // An npm on an older Node.js builds with the supported one that scripts/supported-node.sh fetches.
  const tooOld = Number(process.versions.node.split('.')[0]) < 22;
  const npm = tooOld
    ? ['scripts/supported-node.sh', 'npm']
    : process.env.npm_execpath
      ? [process.execPath, process.env.npm_execpath]
      : ['npm'];
  const result = spawnSync(npm[0], [...npm.slice(1), 'run', 'build'], { stdio: 'inherit' });
  process.exit(result.status ?? 1);
}
