// The writer of `bench/streams.mjs`'s fan-out: registrations committed at a steady rate from a process of its
// own, through Roster's stores as `roster registration create` does, each commit's time noted on the machine's
// monotonic clock (process.hrtime, shared by every process). Driven by its parent over IPC: `connect`, `write`.
import { createDb } from '../dist/stores/database.js';
import { createStores } from '../dist/stores/stores.js';

const now = () => Number(process.hrtime.bigint()) / 1e6;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
let connected;

process.on('message', async (msg) => {
  if (msg.cmd === 'connect') {
    const stores = createStores(createDb(msg.databaseUrl));
    // One statement first: the pool's connection is open before the first timed write.
    connected = stores.changes.head().then(() => stores);
    return;
  }
  const stores = await connected;
  const writes = [];
  const start = now();
  for (const [i, userId] of msg.userIds.entries()) {
    // On a fixed schedule: a slow write does not push the later ones back.
    await sleep(start + (i * 1000) / msg.perSecond - now());
    const sent = now();
    await stores.registrations.create(msg.eventId, userId);
    writes.push({ sent, committed: now() });
  }
  process.send({ writes });
});
process.send({ ready: true });
