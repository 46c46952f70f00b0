import { freshReads } from '../../src/lib/fresh-reads.js';

// The epochs read on PostgreSQL is shared this way: a caller must never get a value read before it asked.

/** A read whose result is the write count at the moment the read started, resolved by hand. */
function controlledRead() {
  let writes = 0;
  const pending: { resolve(v: number): void; reject(e: Error): void; sawWrites: number }[] = [];
  const read = () =>
    new Promise<number>((resolve, reject) => {
      pending.push({ resolve, reject, sawWrites: writes });
    });
  const finish = (i: number) => pending[i]!.resolve(pending[i]!.sawWrites);
  return { read, pending, finish, write: () => (writes += 1) };
}

test('callers arriving during a read wait for the next one, which they share', async () => {
  const r = controlledRead();
  const shared = freshReads(r.read);
  const first = shared();
  r.write(); // a write lands after the first read started
  const second = shared();
  const third = shared();
  expect(r.pending).toHaveLength(1);
  r.finish(0);
  expect(await first).toBe(0);
  await new Promise((resolve) => setImmediate(resolve));
  expect(r.pending).toHaveLength(2); // one more read, for both late callers
  r.finish(1);
  expect(await second).toBe(1);
  expect(await third).toBe(1);
});

test('a failed read fails its callers, and the next call reads again', async () => {
  const r = controlledRead();
  const shared = freshReads(r.read);
  const first = shared();
  const late = shared();
  r.pending[0]!.reject(new Error('connection lost'));
  await expect(first).rejects.toThrow('connection lost');
  await new Promise((resolve) => setImmediate(resolve));
  r.finish(1);
  expect(await late).toBe(0);
  const again = shared();
  r.finish(2);
  expect(await again).toBe(0);
  expect(r.pending).toHaveLength(3);
});

test('calls one after another each read', async () => {
  const r = controlledRead();
  const shared = freshReads(r.read);
  for (let i = 0; i < 3; i += 1) {
    const call = shared();
    r.finish(i);
    await call;
  }
  expect(r.pending).toHaveLength(3);
});
