// A load process of `bench/streams.mjs`: holds many /graphql/stream subscriptions open over node:http and
// notes when each change arrives (process.hrtime, the machine's monotonic clock, shared by every process).
// Driven by its parent over IPC: `open`, `report`, `close`.
import { Agent, request } from 'node:http';
import { decodeChangeCursor } from '../dist/graphql/pagination.js';

/** Every stream of this process: what it received, in order. */
const streams = [];
// One socket per stream: an SSE response holds its connection for as long as it lasts.
const agent = new Agent({ keepAlive: true, maxSockets: Infinity });

const now = () => Number(process.hrtime.bigint()) / 1e6;

/** Opens one stream; resolves with its HTTP status once the headers are in (or the error's message). */
function openOne(url, token, body) {
  return new Promise((resolve) => {
    const s = { changes: [], times: [], cursors: [], errors: 0, comments: 0, ended: false, req: null };
    const req = request(
      `${url}/graphql/stream`,
      {
        method: 'POST',
        agent,
        headers: {
          Accept: 'text/event-stream',
          'Content-Type': 'application/json',
          Authorization: `Bearer ${token}`,
          'Content-Length': Buffer.byteLength(body),
        },
      },
      (res) => {
        if (res.statusCode !== 200) {
          res.resume();
          resolve(res.statusCode);
          return;
        }
        streams.push(s);
        res.setEncoding('utf8');
        let buffer = '';
        res.on('data', (chunk) => {
          const at = now();
          buffer += chunk;
          let end;
          while ((end = buffer.indexOf('\n\n')) >= 0) {
            const block = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            if (block.startsWith(':')) {
              s.comments += 1;
              continue;
            }
            let id = null;
            let event = null;
            let data = '';
            for (const line of block.split('\n')) {
              if (line.startsWith('id: ')) id = line.slice(4);
              else if (line.startsWith('event: ')) event = line.slice(7);
              else if (line.startsWith('data: ')) data += line.slice(6);
            }
            if (event !== 'next') continue;
            const payload = JSON.parse(data);
            const name = payload.data?.changes?.registrant?.name;
            const index = typeof name === 'string' ? Number(name.slice(name.lastIndexOf(' ') + 1)) : NaN;
            if (payload.errors || !Number.isInteger(index)) {
              s.errors += 1;
              continue;
            }
            s.changes.push(index);
            s.times.push(at);
            s.cursors.push(id);
          }
        });
        res.on('close', () => (s.ended = true));
        resolve(200);
      },
    );
    s.req = req;
    req.on('error', (err) => resolve(err.code ?? err.message));
    req.end(body);
  });
}

/** Opens `tokens.length` streams, `concurrency` at a time: how many opened, and the refusals by status. */
async function open({ url, tokens, body, concurrency }) {
  const refused = {};
  let opened = 0;
  let next = 0;
  const worker = async () => {
    while (next < tokens.length) {
      const status = await openOne(url, tokens[next++], body);
      if (status === 200) opened += 1;
      else refused[status] = (refused[status] ?? 0) + 1;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return { opened, refused };
}

/** What each stream received: the changes by index, their receipt times (ms), whether their SSE ids rose. */
function report() {
  return streams.map((s) => {
    let rising = true;
    let last = -1;
    for (const cursor of s.cursors) {
      let position = -1;
      try {
        position = cursor === null ? -1 : decodeChangeCursor(cursor);
      } catch {
        // not a change cursor: counted as out of order
      }
      if (position <= last) rising = false;
      last = position;
    }
    return {
      changes: s.changes,
      times: s.times,
      idsRising: rising,
      errors: s.errors,
      comments: s.comments,
      ended: s.ended,
    };
  });
}

process.on('message', async (msg) => {
  if (msg.cmd === 'open') process.send({ cmd: 'opened', ...(await open(msg)) });
  else if (msg.cmd === 'received') {
    // How many streams have received at least `count` changes: the parent waits on it.
    process.send({ cmd: 'received', streams: streams.filter((s) => s.changes.length >= msg.count).length });
  } else if (msg.cmd === 'status') {
    const open = streams.filter((s) => !s.ended).length;
    process.send({ cmd: 'status', open, comments: streams.reduce((n, s) => n + s.comments, 0) });
  } else if (msg.cmd === 'report') process.send({ cmd: 'report', streams: report() });
  else if (msg.cmd === 'close') {
    for (const s of streams) s.req.destroy();
    agent.destroy();
    process.exit(0);
  }
});
process.send({ cmd: 'ready' });
