import { fileURLToPath } from 'node:url';
import { describe, startReceiver, type Receiver } from './receiver.js';

/** Starts the receiver on ROSTER_WEBHOOK_PORT (default 3001) and prints each change it receives, one a line. */
export async function main(env: NodeJS.ProcessEnv, print: (line: string) => void): Promise<Receiver> {
  const secret = env.ROSTER_WEBHOOK_SECRET;
  if (!secret?.startsWith('whsec_')) throw new Error('Set ROSTER_WEBHOOK_SECRET to the webhook’s secret (whsec_…).');
  const receiver = await startReceiver({
    secret,
    port: Number(env.ROSTER_WEBHOOK_PORT ?? 3001),
    host: env.ROSTER_WEBHOOK_HOST ?? '127.0.0.1',
    onDelivery: (delivery, id) => print(describe(delivery, id)),
  });
  print(`Listening for Roster's webhooks on ${receiver.url}`);
  return receiver;
}

// Run as a program (not when a test imports it).
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main(process.env, (line) => console.log(line)).catch((err: Error) => {
    console.error(err.message);
    process.exitCode = 1;
  });
}
