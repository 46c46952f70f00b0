import type { ChildProcess } from 'node:child_process';
import { useBuiltDist } from '../helpers/build.js';
import { cli } from '../helpers/cli.js';
import { until, within } from '../helpers/wait.js';
import { settled, useDeliveryServers } from '../helpers/webhooks.js';

// Real server processes on one database: a delivery is committed with its change, so what was written while
// no server ran is sent when one starts, and an attempt cut off by kill -9 is made again once its lease
// (15 s) has run out — with the same webhook-id, and nothing lost.
useBuiltDist();
const t = useDeliveryServers();

const exited = (proc: ChildProcess) =>
  new Promise<NodeJS.Signals | number | null>((resolve) =>
    proc.once('exit', (code, signal) => resolve(signal ?? code)),
  );

/** The webhook's deliveries as stored, oldest first. */
const rows = (webhookId: number) =>
  t.d
    .db('webhook_deliveries')
    .where({ webhook_id: webhookId })
    .orderBy('id')
    .select('message_id', 'state', 'attempts', 'lease_until');

test('kill -9 mid-delivery: sent again with the same webhook-id after the lease; what was written while no server ran is sent on start', async () => {
  let hold = true;
  t.receiver.answer = () => (hold ? 'hold' : 204);
  const { webhook } = await t.d.services.webhooks.create({ appId: t.d.appId, url: t.receiver.url });

  // No server runs: a registration made with the CLI.
  await t.d.stores.users.create({ email: 'cli.guest@example.com', name: 'CLI Guest' });
  const made = await cli(t.d.url, [
    'registration',
    'create',
    '--event',
    t.d.event.slug,
    '--user',
    'cli.guest@example.com',
  ]);
  expect(made.code).toBe(0);

  // A server starts and sends it; two more while it runs. The receiver holds all three open.
  const first = await t.start();
  await until(() => t.receiver.received.length === 1, 'the change made before any server ran', 10_000);
  await t.d.register('Held Guest 1');
  await t.d.register('Held Guest 2');
  await until(() => t.receiver.received.length === 3, 'three attempts in flight', 10_000);
  const inFlight = await rows(webhook.id);
  expect(inFlight.map((r) => [r.state, Number(r.attempts)])).toEqual([
    ['pending', 0],
    ['pending', 0],
    ['pending', 0],
  ]);
  const leases = inFlight.map((r) => Number(r.lease_until));
  for (const lease of leases) expect(lease).toBeGreaterThan(Date.now());

  const killed = exited(first.proc);
  first.proc.kill('SIGKILL');
  expect(await within(5000, 'the killed process gone', killed)).toBe('SIGKILL');

  // No server runs: another change. Then a new process on the same database, the receiver answering now.
  await t.d.register('While Down');
  hold = false;
  await t.start();
  const ready = Date.now();
  const whileDown = (await rows(webhook.id))[3]!.message_id as string;
  // The change no process had taken goes at once, not when the leases run out.
  await until(() => t.receiver.ids().includes(whileDown), 'the change made while no server ran', 10_000);
  expect(t.receiver.at[t.receiver.ids().indexOf(whileDown)]! - ready).toBeLessThan(5000);

  // The three cut off come again once their leases ran out, each with its webhook-id.
  await until(() => t.receiver.received.length === 7, 'the killed attempts made again', 25_000);
  const ids = t.receiver.ids();
  const cutOff = ids.slice(0, 3);
  expect(ids.filter((id) => id !== whileDown).sort()).toEqual([...cutOff, ...cutOff].sort());
  cutOff.forEach((id, i) => {
    const again = ids.lastIndexOf(id);
    expect(again).toBeGreaterThan(2);
    expect(t.receiver.at[again]!).toBeGreaterThanOrEqual(leases[i]!);
  });
  // Nothing lost, nothing doubled: four deliveries, each delivered with one attempt written (a killed one has none).
  const done = await settled(t.d.services, webhook.id, 4);
  expect(done.map((r) => [r.state, r.attempts])).toEqual(Array(4).fill(['delivered', 1]));
  expect(new Set(done.map((r) => r.messageId))).toEqual(new Set(ids));
  const { attempts } = await t.d.services.webhooks.history(webhook.id);
  expect(attempts.map((a) => a.status)).toEqual([204, 204, 204, 204]);
}, 60_000);
