import { createServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { useSeededServer } from '../helpers/fixtures.js';
import { startReceiver, type Receiver } from '../helpers/receivers.js';
import { until } from '../helpers/wait.js';
import { appIdOf, hookReceiver, settled, type HookReceiver } from '../helpers/webhooks.js';

// Receivers that stall hold PER_WEBHOOK (4) attempts each and no more: another webhook's deliveries go out
// at once. Each stalled attempt ends at the 10 s timeout, recorded as such, whatever the stall looks like.
// One owner has every webhook here: 64 slots give that owner a share of 16, room for 3 stalled webhooks and one more.
const t = useSeededServer({ WEBHOOK_CONCURRENCY: '64' });
const closers: (() => Promise<void>)[] = [];
/** Before the server stops: its worker would otherwise give the attempts still held its 5 s grace. */
const closeReceivers = () => Promise.all(closers.splice(0).map((close) => close()));
afterAll(closeReceivers);

/** A TCP server that accepts connections and never reads or writes a byte. */
async function silentServer(): Promise<{ url: string; sockets: Socket[] }> {
  const sockets: Socket[] = [];
  const server = createServer((socket) => void sockets.push(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(
    () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  );
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, sockets };
}

test('stalled receivers hold 4 attempts each; another webhook is served at once; the stalls time out at 10 s', async () => {
  const appId = await appIdOf(t.server.stores, t.fx.orgApp.clientId);
  // Reads the request, never answers.
  const holding: HookReceiver = await hookReceiver(() => 'hold');
  // Answers 200 and starts a body it never finishes.
  const trickling: Receiver = await startReceiver((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.write('partial');
  });
  const silent = await silentServer();
  const fast = await hookReceiver();
  closers.push(...[holding, trickling, fast].map((r) => () => r.close()));
  const create = (url: string) => t.server.services.webhooks.create({ appId, url }).then((w) => w.webhook.id);
  const stalled = [await create(holding.url), await create(trickling.url), await create(silent.url)];
  const served = await create(fast.url);

  try {
    await stall(stalled, served, { holding, trickling, silent, fast });
  } finally {
    await closeReceivers();
  }
}, 20_000);

async function stall(
  stalled: number[],
  served: number,
  {
    holding,
    trickling,
    silent,
    fast,
  }: { holding: HookReceiver; trickling: Receiver; silent: { sockets: Socket[] }; fast: HookReceiver },
) {
  for (let i = 0; i < 6; i++) {
    const guest = await t.server.stores.users.create({ name: `Slow Guest ${i}` });
    await t.server.stores.registrations.create(t.fx.publicEvent.id, guest.id);
  }
  const started = Date.now();
  t.server.nudgeWebhooks();

  // The fast receiver's webhook has all six within 2 s, while the others hold 12 of the owner's 16 slots.
  await settled(t.server.services, served, 6, 2000);
  expect(Date.now() - started).toBeLessThan(2000);
  expect(fast.received).toHaveLength(6);
  await until(() => holding.held.length === 4 && silent.sockets.length === 4, 'four attempts held at each', 2000);
  expect(trickling.received).toHaveLength(4);
  const waitingAt = async (id: number) =>
    (await t.server.services.webhooks.history(id)).deliveries.filter((d) => d.state === 'pending').length;
  for (const id of stalled) expect(await waitingAt(id)).toBe(6);

  // Each stalled attempt ends at 10 s as a timeout, and is to be retried.
  for (const id of stalled) {
    await until(
      async () => (await t.server.services.webhooks.history(id)).attempts.length >= 4,
      `webhook ${id}: the stalled attempts recorded`,
      13_000,
    );
  }
  for (const id of stalled) {
    const { attempts, deliveries } = await t.server.services.webhooks.history(id);
    for (const a of attempts.slice(-4)) {
      expect(a.error).toBe('timed out after 10 s');
      expect(a.durationMs).toBeGreaterThanOrEqual(9900);
      expect(a.durationMs).toBeLessThan(15_000);
    }
    expect(deliveries.filter((d) => d.attempts === 1 && d.state === 'pending')).toHaveLength(4);
  }
  // The answer's status was read, but a body that never ends is no success.
  const trickled = (await t.server.services.webhooks.history(stalled[1]!)).attempts;
  expect(trickled.slice(-4).map((a) => a.status)).toEqual([200, 200, 200, 200]);
}
