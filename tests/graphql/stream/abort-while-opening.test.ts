import { useSeededServer } from '../../helpers/fixtures.js';
import { SUBSCRIBE } from '../../helpers/streams.js';
import { until } from '../../helpers/wait.js';

const t = useSeededServer();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Opens a stream with fetch and aborts it after `abortAfterMs`, whatever stage the server is at. */
async function openAndAbort(token: string, abortAfterMs: number): Promise<void> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), abortAfterMs);
  try {
    const res = await fetch(`${t.server.url}/graphql/stream`, {
      method: 'POST',
      headers: { accept: 'text/event-stream', 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ query: SUBSCRIBE }),
      signal: controller.signal,
    });
    await res.text();
  } catch {
    // aborted
  }
  clearTimeout(timer);
}

test('control: a client that leaves an open stream leaves nothing behind', async () => {
  await openAndAbort(t.fx.tokens.organizerUser, 300);
  await until(() => t.server.services.live.open === 0, 'the follower gone', 2000);
});

test('a client that leaves while its stream is being paid for leaves no follower (nor response, nor timer) behind', async () => {
  // The budget's database write (the owner's first request of a window, or any subscription costing more than a
  // local batch of points) made slow, as on a loaded PostgreSQL: the client hangs up during it.
  const limiter = t.server.services.limiter;
  const consume = limiter.consume.bind(limiter);
  let calls = 0;
  limiter.consume = async (...args: Parameters<typeof consume>) => {
    calls++;
    await sleep(400);
    return consume(...args);
  };
  try {
    for (let i = 0; i < 3; i++) await openAndAbort(t.fx.tokens.organizerUser, 150);
  } finally {
    limiter.consume = consume;
  }
  await sleep(600); // every consume has returned
  let live = -1;
  const gone = await until(() => (live = t.server.services.live.open) === 0, 'the followers gone', 3000).then(
    () => true,
    () => false,
  );
  expect({ requestsPaidFor: calls, gone, followersStillOpen: live }).toEqual({
    requestsPaidFor: calls,
    gone: true,
    followersStillOpen: 0,
  });
});
