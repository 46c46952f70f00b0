import { readFileSync } from 'node:fs';
import { MIN_NODE_MAJOR, relaunchOnSupportedNode, unsupportedNode } from '../../src/lib/supported-node.js';

test.each(['20.20.2', '21.7.3', '18.0.0'])('Node.js %s is refused in one line naming the supported lines', (v) => {
  const line = unsupportedNode(v);
  expect(line).toContain(`Node.js ${v} is not supported`);
  expect(line).toContain('22 LTS, 24 LTS or newer');
  expect(line).not.toContain('\n');
});

test.each(['22.0.0', '22.23.3', '24.21.0', '26.1.0'])('Node.js %s runs', (v) => {
  expect(unsupportedNode(v)).toBeUndefined();
});

test('the oldest line agrees with package.json engines and the launcher', () => {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    engines: { node: string };
  };
  expect(pkg.engines.node).toBe(`>=${MIN_NODE_MAJOR}`);
  const launcher = readFileSync(new URL('../../scripts/supported-node.sh', import.meta.url), 'utf8');
  expect(launcher).toContain(`MIN=${MIN_NODE_MAJOR}\n`);
});

test('on the Node.js running the tests the CLI runs in-process, relaunching nothing', () => {
  expect(relaunchOnSupportedNode(['node', '/nonexistent/cli.js'])).toBeUndefined();
});
