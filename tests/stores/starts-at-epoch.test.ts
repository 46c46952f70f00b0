import { REUSE_WINDOW_MS } from '../../src/stores/rows-at-epoch.js';
import { StartsAtEpoch } from '../../src/stores/starts-at-epoch.js';
import type { KeysetRange } from '../../src/stores/types.js';

// The start of a list read at some epochs serves any window it holds whole, exactly as the page statement
// would answer it, to a caller that read the same epochs; for anything else it answers nothing.

interface Row {
  id: number;
}

/** Epochs (data, changes) read just now. */
const at = (epoch: string, changes = '0') => ({ epoch, changes, readAt: performance.now() });
/** The same epochs, read again just now: a loop of many windows outlasts the reuse window. */
const again = (epochs: ReturnType<typeof at>) => ({ ...epochs, readAt: performance.now() });

/** What the page statement returns: ids between the bounds, in id order (descending backward), `limit` of them. */
function statement(ids: readonly number[], limit: number, { afterId, beforeId, backward }: KeysetRange): number[] {
  const between = ids.filter((id) => (afterId === null || id > afterId) && (beforeId === null || id < beforeId));
  return (backward ? between.reverse() : between).slice(0, limit);
}

/** A start read by the statement from the list `ids` with `limit`, kept at `at`. */
function keptStart(ids: readonly number[], limit: number, epochs = at('1')) {
  const starts = new StartsAtEpoch<Row>(10_000, 2_000);
  const rows = statement(ids, limit, { afterId: null, beforeId: null, backward: false }).map((id) => ({ id }));
  starts.keep(7, epochs, limit, rows);
  return { starts, epochs };
}

test('every window the kept start answers is the one the statement gives, whatever the bounds', () => {
  // Ids with gaps, as deletions leave them; bounds on, between and past the ids.
  const ids = [2, 3, 5, 8, 9, 12, 15, 16, 20, 21];
  const bounds = [null, 0, 1, 2, 4, 5, 9, 10, 16, 21, 22, 40];
  let served = 0;
  let refused = 0;
  for (const startLimit of [1, 3, 6, 10, 11, 50]) {
    const { starts, epochs } = keptStart(ids, startLimit);
    for (const afterId of bounds)
      for (const beforeId of bounds)
        for (const backward of [false, true])
          for (const limit of [1, 2, 3, 5, 11]) {
            const range = { afterId, beforeId, backward };
            const kept = starts.window(7, again(epochs), limit, range);
            if (kept === undefined) {
              refused += 1;
              continue;
            }
            served += 1;
            expect({ startLimit, range, limit, ids: kept.map((r) => r.id) }).toEqual({
              startLimit,
              range,
              limit,
              ids: statement(ids, limit, range),
            });
          }
  }
  // Both kinds happen: a start that is not the whole list cannot answer everything.
  expect(served).toBeGreaterThan(3000);
  expect(refused).toBeGreaterThan(100);
});

test('the whole list kept answers every window; a start short of it answers only within what it holds', () => {
  const ids = [1, 2, 3, 4, 5];
  const whole = keptStart(ids, 6);
  expect(whole.starts.window(7, whole.epochs, 3, { afterId: null, beforeId: null, backward: true })).toEqual([
    { id: 5 },
    { id: 4 },
    { id: 3 },
  ]);
  expect(whole.starts.window(7, whole.epochs, 3, { afterId: 5, beforeId: null, backward: false })).toEqual([]);
  const short = keptStart(ids, 3);
  expect(short.starts.window(7, short.epochs, 3, { afterId: null, beforeId: null, backward: false })).toHaveLength(3);
  expect(short.starts.window(7, short.epochs, 2, { afterId: 1, beforeId: null, backward: false })).toEqual([
    { id: 2 },
    { id: 3 },
  ]);
  expect(short.starts.window(7, short.epochs, 3, { afterId: 1, beforeId: null, backward: false })).toBeUndefined();
  expect(short.starts.window(7, short.epochs, 1, { afterId: null, beforeId: null, backward: true })).toBeUndefined();
  // Before a kept row, backward: every row before it is kept.
  expect(short.starts.window(7, short.epochs, 5, { afterId: null, beforeId: 3, backward: true })).toEqual([
    { id: 2 },
    { id: 1 },
  ]);
});

test('a start is served at the epochs it was read at only, and never past the reuse window', () => {
  const { starts } = keptStart([1, 2, 3], 4, at('5', '9'));
  const range = { afterId: null, beforeId: null, backward: false };
  expect(starts.window(7, at('5', '9'), 4, range)).toHaveLength(3);
  expect(starts.window(7, at('6', '9'), 4, range)).toBeUndefined();
  expect(starts.window(7, at('5', '10'), 4, range)).toBeUndefined();
  expect(starts.window(8, at('5', '9'), 4, range)).toBeUndefined();
  expect(starts.window(7, undefined, 4, range)).toBeUndefined();
  const heldUp = { epoch: '5', changes: '9', readAt: performance.now() - REUSE_WINDOW_MS - 1 };
  expect(starts.window(7, heldUp, 4, range)).toBeUndefined();
});

test('a longer start at the same epochs, or any at later ones, stays; an older read never replaces a newer', () => {
  const starts = new StartsAtEpoch<Row>(10_000, 2_000);
  const range = { afterId: null, beforeId: null, backward: false };
  const rows = (n: number, from = 1) => Array.from({ length: n }, (_, i) => ({ id: from + i }));
  starts.keep(7, at('1', '1'), 11, rows(11));
  starts.keep(7, at('1', '1'), 3, rows(3));
  expect(starts.window(7, at('1', '1'), 11, range)).toHaveLength(11);
  // Newer epochs replace a longer start; an older read finishing later does not come back over it.
  starts.keep(7, at('1', '2'), 3, rows(3, 100));
  starts.keep(7, at('1', '1'), 11, rows(11));
  starts.keep(7, at('0', '5'), 11, rows(11));
  expect(starts.window(7, at('1', '2'), 2, range)).toEqual([{ id: 100 }, { id: 101 }]);
  expect(starts.window(7, at('1', '1'), 2, range)).toBeUndefined();
  // Epochs compare as numbers: "10" is later than "9".
  starts.keep(7, at('10', '0'), 2, rows(2, 500));
  starts.keep(7, at('9', '99'), 2, rows(2, 600));
  expect(starts.window(7, at('10', '0'), 2, range)).toEqual([{ id: 500 }, { id: 501 }]);
});

test('kept rows are bounded in all and per list, least recently served dropped first', () => {
  const starts = new StartsAtEpoch<Row>(100, 40);
  const epochs = at('1');
  const rows = (n: number) => Array.from({ length: n }, (_, i) => ({ id: i + 1 }));
  starts.keep(1, epochs, 60, rows(41));
  expect(starts.size).toBe(0);
  for (let list = 1; list <= 5; list += 1) starts.keep(list, epochs, 31, rows(30));
  expect(starts.size).toBe(3);
  const range = { afterId: null, beforeId: null, backward: false };
  expect(starts.window(3, epochs, 1, range)).toHaveLength(1);
  starts.keep(6, epochs, 31, rows(30));
  expect(starts.window(3, epochs, 1, range)).toHaveLength(1);
  expect(starts.window(4, epochs, 1, range)).toBeUndefined();
});

test('nothing is kept without epochs; a start whose read outlasted the reuse window is kept all the same', () => {
  const starts = new StartsAtEpoch<Row>(100, 40);
  starts.keep(1, undefined, 3, [{ id: 1 }]);
  expect(starts.size).toBe(0);
  // Read after those epochs, however slowly: its rows are no older than they say.
  starts.keep(1, { epoch: '1', changes: '0', readAt: performance.now() - REUSE_WINDOW_MS - 1 }, 3, [{ id: 1 }]);
  expect(starts.window(1, at('1'), 3, { afterId: null, beforeId: null, backward: false })).toEqual([{ id: 1 }]);
});
