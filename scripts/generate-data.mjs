#!/usr/bin/env node
// Writes an NDJSON file for `roster import`: users, N events and M registrations, deterministic.
// Usage: node scripts/generate-data.mjs [--events 1000] [--registrations 1000000] [--users 100000] [--out FILE|-]
import { createWriteStream } from 'node:fs';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    events: { type: 'string', default: '1000' },
    registrations: { type: 'string', default: '1000000' },
    users: { type: 'string', default: '100000' },
    out: { type: 'string', default: '-' },
  },
});
const events = Number(values.events);
const registrations = Number(values.registrations);
const users = Math.max(Number(values.users), Math.ceil(registrations / events), 1);
if (![events, registrations, users].every((n) => Number.isSafeInteger(n) && n > 0)) {
  process.stderr.write('generate-data: --events, --registrations and --users must be positive integers\n');
  process.exit(2);
}

const out = values.out === '-' ? process.stdout : createWriteStream(values.out);
let buffer = '';
async function write(record) {
  buffer += `${JSON.stringify(record)}\n`;
  if (buffer.length > 1 << 16) {
    const chunk = buffer;
    buffer = '';
    if (!out.write(chunk)) await new Promise((resolve) => out.once('drain', resolve));
  }
}

const STATES = ['active', 'active', 'active', 'active', 'pending', 'deactivated'];
for (let i = 0; i < users; i += 1) {
  await write({ type: 'user', email: `user${i}@scale.test`, name: `Scale User ${i}`, activation_state: STATES[i % 6] });
}
for (let e = 0; e < events; e += 1) {
  await write({
    type: 'event',
    slug: `scale-event-${e}`,
    name: `Scale Event ${e}`,
    organizers: [`user${e % users}@scale.test`],
    visibility: e % 10 === 0 ? 'private' : 'public',
  });
}
// Registrations spread evenly: event e gets users e*k, e*k+1, ... (mod users), no duplicates per event.
const perEvent = Math.floor(registrations / events);
let extra = registrations - perEvent * events;
for (let e = 0; e < events; e += 1) {
  const count = perEvent + (extra > 0 ? 1 : 0);
  if (extra > 0) extra -= 1;
  for (let r = 0; r < count; r += 1) {
    await write({ type: 'registration', event: `scale-event-${e}`, user: `user${(e * 7919 + r) % users}@scale.test` });
  }
}
out.write(buffer);
if (out !== process.stdout) out.end();
