import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The oldest Node.js release line Roster runs on (package.json `engines`). */
export const MIN_NODE_MAJOR = 22;

const major = (version: string): number => Number(version.split('.')[0]);

/** One line for a Node.js too old to run Roster, or undefined when this one is supported. */
export function unsupportedNode(version = process.versions.node): string | undefined {
  if (major(version) >= MIN_NODE_MAJOR) return undefined;
  return `Node.js ${version} is not supported: run Roster on Node.js ${MIN_NODE_MAJOR} LTS, 24 LTS or newer (\`npm start\` in a checkout fetches one)`;
}

/**
 * On a Node.js too old for Roster, runs this same command again on the supported one that
 * scripts/supported-node.sh fetches and caches (a checkout has it) and returns its exit code;
 * on a supported Node.js returns undefined at the cost of one comparison.
 */
export function relaunchOnSupportedNode(argv = process.argv): number | undefined {
  if (!unsupportedNode()) return undefined;
  const launcher = fileURLToPath(new URL('../../scripts/supported-node.sh', import.meta.url));
  if (!existsSync(launcher) || !argv[1]) {
    process.stderr.write(`roster: ${unsupportedNode()}\n`);
    return 1;
  }
  const run = spawnSync(launcher, ['node', argv[1], ...argv.slice(2)], { stdio: 'inherit' });
  return run.status ?? 1;
}
