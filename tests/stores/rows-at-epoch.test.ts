import { REUSE_WINDOW_MS, RowsAtEpoch } from '../../src/stores/rows-at-epoch.js';

// Rows read at a data epoch are handed to later callers that read the same epoch, and to no one else.

interface Row {
  key: string;
  value: string;
}

/** A table in memory that records which keys each read asked for. */
function table(rows: Record<string, string>) {
  const asked: string[][] = [];
  const read = async (keys: readonly string[]): Promise<Row[]> => {
    asked.push([...keys]);
    return keys.filter((k) => k in rows).map((key) => ({ key, value: rows[key]! }));
  };
  return { rows, asked, read };
}

const keyOf = (row: Row) => row.key;
/** Epoch `epoch`, read just now. */
const at = (epoch: string) => ({ epoch, changes: '0', readAt: performance.now() });
const values = (rows: Row[]) => rows.map((r) => `${r.key}=${r.value}`).sort();

test('a row read at an epoch is reused at that epoch only; only the keys not kept are read', async () => {
  const t = table({ a: 'A1', b: 'B1' });
  const kept = new RowsAtEpoch<string, Row>(10);
  expect(values(await kept.get(['a'], at('7'), keyOf, t.read))).toEqual(['a=A1']);
  t.rows.a = 'A2';
  t.rows.b = 'B2';
  expect(values(await kept.get(['a', 'b'], at('7'), keyOf, t.read))).toEqual(['a=A1', 'b=B2']);
  expect(t.asked).toEqual([['a'], ['b']]);
  // Another epoch: what was kept is not this epoch's, so everything is read again.
  expect(values(await kept.get(['a', 'b'], at('8'), keyOf, t.read))).toEqual(['a=A2', 'b=B2']);
  expect(t.asked.at(-1)).toEqual(['a', 'b']);
});

test('without an epoch every key is read and nothing is kept', async () => {
  const t = table({ a: 'A1' });
  const kept = new RowsAtEpoch<string, Row>(10);
  await kept.get(['a'], undefined, keyOf, t.read);
  await kept.get(['a'], undefined, keyOf, t.read);
  expect(t.asked).toEqual([['a'], ['a']]);
  expect(kept.size).toBe(0);
});

test('a read for an older epoch, finishing last, does not replace the row kept for a newer one', async () => {
  const t = table({ a: 'A1' });
  const kept = new RowsAtEpoch<string, Row>(10);
  // Epochs compare as numbers: "10" is newer than "9".
  await kept.get(['a'], at('10'), keyOf, t.read);
  t.rows.a = 'A-older-caller';
  expect(values(await kept.get(['a'], at('9'), keyOf, t.read))).toEqual(['a=A-older-caller']);
  t.rows.a = 'A3';
  expect(values(await kept.get(['a'], at('10'), keyOf, t.read))).toEqual(['a=A1']);
  expect(t.asked).toHaveLength(2);
});

test('keys with no row are never kept: a flood of unknown keys reads each time and keeps nothing', async () => {
  const t = table({ a: 'A1' });
  const kept = new RowsAtEpoch<string, Row>(10);
  for (let i = 0; i < 1000; i += 1) expect(await kept.get([`missing-${i}`], at('1'), keyOf, t.read)).toEqual([]);
  expect(await kept.get(['missing-0'], at('1'), keyOf, t.read)).toEqual([]);
  expect(t.asked).toHaveLength(1001);
  expect(kept.size).toBe(0);
});

test('at most `max` rows are kept, the least recently read dropped first', async () => {
  const rows = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, `v${i}`]));
  const t = table(rows);
  const kept = new RowsAtEpoch<string, Row>(20);
  for (let i = 0; i < 50; i += 1) await kept.get([`k${i}`], at('1'), keyOf, t.read);
  expect(kept.size).toBe(20);
  const reads = t.asked.length;
  await kept.get(['k49'], at('1'), keyOf, t.read); // kept
  await kept.get(['k0'], at('1'), keyOf, t.read); // dropped long ago
  expect(t.asked.slice(reads)).toEqual([['k0']]);
});

test('the rows handed out are frozen: one caller cannot change what the next is given', async () => {
  const t = table({ a: 'A1' });
  const kept = new RowsAtEpoch<string, Row>(10);
  const [row] = await kept.get(['a'], at('1'), keyOf, t.read);
  expect(() => {
    (row as Row).value = 'changed';
  }).toThrow(TypeError);
  expect(values(await kept.get(['a'], at('1'), keyOf, t.read))).toEqual(['a=A1']);
});

test('a failed read keeps nothing and fails its caller; the next caller reads again', async () => {
  const kept = new RowsAtEpoch<string, Row>(10);
  await expect(kept.get(['a'], at('1'), keyOf, () => Promise.reject(new Error('connection lost')))).rejects.toThrow(
    'connection lost',
  );
  const t = table({ a: 'A1' });
  expect(values(await kept.get(['a'], at('1'), keyOf, t.read))).toEqual(['a=A1']);
  expect(t.asked).toEqual([['a']]);
});

test('an epoch read longer ago than the reuse window is served nothing kept: its rows are read again', async () => {
  const t = table({ a: 'A1' });
  const kept = new RowsAtEpoch<string, Row>(10);
  await kept.get(['a'], at('1'), keyOf, t.read);
  t.rows.a = 'A2';
  // The same epoch, but read before a request was held up (a body sent slowly): what it reads now is current.
  const heldUp = { epoch: '1', changes: '0', readAt: performance.now() - REUSE_WINDOW_MS - 1 };
  expect(values(await kept.get(['a'], heldUp, keyOf, t.read))).toEqual(['a=A2']);
  expect(t.asked).toEqual([['a'], ['a']]);
});

test('a kept row the caller may not use is read again, exactly as a key never kept', async () => {
  const t = table({ hidden: 'H1', open: 'O1' });
  const kept = new RowsAtEpoch<string, Row>(10);
  await kept.get(['hidden', 'open'], at('1'), keyOf, t.read);
  const notHidden = (row: Row) => row.key !== 'hidden';
  expect(values(await kept.get(['hidden', 'open', 'missing'], at('1'), keyOf, t.read, notHidden))).toEqual([
    'hidden=H1',
    'open=O1',
  ]);
  // The hidden row and the missing key are read the same way; the usable one is served from what was kept.
  expect(t.asked.at(-1)).toEqual(['hidden', 'missing']);
});
