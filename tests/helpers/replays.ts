import type { LogLine } from './log-lines.js';
import { until } from './wait.js';

/**
 * Makes one /graphql request through `ask` and says whether the replay cache answered it, from the request's
 * log line (found by its X-Request-Id): a computed answer may run no statement at all (its events kept at the
 * same data epoch), so the statements run cannot tell.
 */
export async function askReplayed<T extends { headers: Headers }>(
  lines: readonly LogLine[],
  ask: () => Promise<T>,
): Promise<{ result: T; replayed: boolean }> {
  const result = await ask();
  const id = result.headers.get('x-request-id');
  if (!id) throw new Error('the answer has no X-Request-Id');
  let line: LogLine | undefined;
  await until(
    () => (line = lines.find((l) => l.msg === 'request' && l.requestId === id)) !== undefined,
    'its log line',
  );
  return { result, replayed: line!.replay === 'hit' };
}
