import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { Webhook } from 'standardwebhooks';
import type { Delivery } from './receiver.js';

/**
 * Sends one delivery shaped and signed as Roster's are (Standard Webhooks), to try a receiver without a
 * Roster: `webhook-id`, `webhook-timestamp` and `webhook-signature` over `id.timestamp.body`. Returns the status.
 */
export async function sendTest(url: string, secret: string, id = `msg_${randomUUID()}`): Promise<number> {
  const delivery: Delivery = {
    type: 'registration.created',
    timestamp: new Date().toISOString(),
    data: {
      cursor: 'test',
      event: { slug: 'roster-launch', name: 'Roster Launch Party' },
      registration: { id: 'test-registration' },
      registrant: { id: 'test-registrant', name: 'Ada Lovelace', activationState: 'active' },
    },
  };
  const body = JSON.stringify(delivery);
  const now = new Date();
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      'webhook-id': id,
      'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
      'webhook-signature': new Webhook(secret).sign(id, now, body),
    },
    body,
  });
  return res.status;
}

// Run as a program: node dist/examples/webhook-receiver/send-test.js [URL], with ROSTER_WEBHOOK_SECRET set.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const secret = process.env.ROSTER_WEBHOOK_SECRET ?? '';
  sendTest(process.argv[2] ?? 'http://127.0.0.1:3001/', secret).then(
    (status) => console.log(`The receiver answered ${status}`),
    (err: Error) => {
      console.error(err.message);
      process.exitCode = 1;
    },
  );
}
