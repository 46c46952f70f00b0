import type { IncomingHttpHeaders } from 'node:http';
import { Webhook } from 'standardwebhooks';
import { parseAllowHosts } from '../../src/lib/addresses.js';
import { newWebhookSecret, webhookHeaders } from '../../src/lib/webhook-signature.js';
import type { Resolver } from '../../src/webhooks/resolve-target.js';
import { MAX_RESPONSE_BYTES, sendWebhook, type WebhookRequest } from '../../src/webhooks/send-webhook.js';
import { closedPort, selfSignedCertificate, startReceiver, type Receiver } from '../helpers/receivers.js';
import { until } from '../helpers/wait.js';

const receivers: Receiver[] = [];
async function receiver(...args: Parameters<typeof startReceiver>): Promise<Receiver> {
  const started = await startReceiver(...args);
  receivers.push(started);
  return started;
}
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});

const development = { production: false };
const tls = selfSignedCertificate('hooks.test');
const body = JSON.stringify({ type: 'registration.created', timestamp: new Date().toISOString(), data: {} });

function signed(url: string, secret = newWebhookSecret()): WebhookRequest & { secret: string } {
  return { url, secret, body, headers: { ...webhookHeaders(secret, 'msg_test1', new Date(), body) } };
}

/** A resolver answering each call with the next of `answers` (the last one again after that), counting calls. */
function resolver(...answers: string[][]): Resolver & { calls: string[] } {
  const calls: string[] = [];
  return Object.assign(
    async (host: string) => {
      calls.push(host);
      return (answers[Math.min(calls.length - 1, answers.length - 1)] ?? []).map((address) => ({ address }));
    },
    { calls },
  );
}

/** A 200 receiver that checks the signature exactly as a receiver using standardwebhooks does. */
function verifying(secret: string) {
  return receiver((req, res, text) => {
    try {
      new Webhook(secret).verify(text, req.headers as Record<string, string>);
      res.writeHead(200, { 'content-type': 'text/plain' }).end('verified');
    } catch (err) {
      res.writeHead(401).end(String(err));
    }
  });
}

describe('an answered attempt', () => {
  test('a 2xx from a receiver that verifies the signature is a success', async () => {
    const secret = newWebhookSecret();
    const hook = await verifying(secret);
    const request = signed(hook.url, secret);
    const result = await sendWebhook(request, development);
    expect(result).toEqual({
      status: 200,
      durationMs: expect.any(Number),
      responseExcerpt: 'verified',
      responseBytes: 8,
    });
    expect(hook.received).toHaveLength(1);
    const [got] = hook.received;
    expect(got!.method).toBe('POST');
    expect(got!.path).toBe('/hook');
    expect(got!.body).toBe(body);
    expect(got!.headers).toMatchObject<IncomingHttpHeaders>({
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(body)),
      'webhook-id': 'msg_test1',
      'webhook-timestamp': request.headers['webhook-timestamp'],
      'webhook-signature': request.headers['webhook-signature'],
    });
    expect(got!.headers.host).toBe(`127.0.0.1:${hook.port}`);
  });

  test('a signature under another secret is what the receiver refuses, and the attempt fails', async () => {
    const hook = await verifying(newWebhookSecret());
    const result = await sendWebhook(signed(hook.url), development);
    expect(result.status).toBe(401);
    expect(result.error).toBe('answered 401 Unauthorized');
    expect(result.responseExcerpt).toContain('No matching signature found');
  });

  test('a 500 is a failure with its status and the start of its body', async () => {
    const hook = await receiver((_req, res) => res.writeHead(500).end('database down\n' + 'x'.repeat(5000)));
    const result = await sendWebhook(signed(hook.url), development);
    expect(result).toMatchObject({ status: 500, error: 'answered 500 Internal Server Error', responseBytes: 5014 });
    expect(result.responseExcerpt).toBe(('database down\n' + 'x'.repeat(5000)).slice(0, 1024));
  });

  test('a redirect is not followed: the failure names it and its target gets no request', async () => {
    const target = await receiver((_req, res) => res.writeHead(200).end('should not be reached'));
    const hook = await receiver((_req, res) => res.writeHead(302, { location: target.url }).end());
    const result = await sendWebhook(signed(hook.url), development);
    expect(result).toMatchObject({ status: 302, error: 'redirect 302 not followed' });
    expect(hook.received).toHaveLength(1);
    expect(target.received).toHaveLength(0);
    expect(target.connections).toBe(0);
  });

  test.each([301, 303, 307, 308])('a %d is not followed either', async (status) => {
    const target = await receiver((_req, res) => res.writeHead(200).end());
    const hook = await receiver((_req, res) => res.writeHead(status, { location: target.url }).end());
    expect(await sendWebhook(signed(hook.url), development)).toMatchObject({
      status,
      error: `redirect ${status} not followed`,
    });
    expect(target.connections).toBe(0);
  });
});

describe('a receiver that holds on', () => {
  test('one that never answers times out within the bound, and its connection is closed', async () => {
    const hook = await receiver(() => {});
    const started = performance.now();
    const result = await sendWebhook(signed(hook.url), { ...development, timeoutMs: 300 });
    const elapsed = performance.now() - started;
    expect(result).toEqual({ durationMs: expect.any(Number), error: 'timed out after 300 ms', responseBytes: 0 });
    expect(result.durationMs).toBeGreaterThanOrEqual(295);
    expect(elapsed).toBeLessThan(2000);
    await until(() => hook.closedConnections === 1, 'the receiver sees its connection closed', 2000);
  });

  test('one that never reads the body times out too', async () => {
    const hook = await receiver(() => {}, { beforeBody: true });
    const big = { ...signed(hook.url), body: 'x'.repeat(8 * 1024 * 1024) };
    const started = performance.now();
    const result = await sendWebhook(big, { ...development, timeoutMs: 300 });
    expect(result.error).toBe('timed out after 300 ms');
    expect(performance.now() - started).toBeLessThan(2000);
  });

  test('one that sends its headers and then stalls times out with the status it sent', async () => {
    const hook = await receiver((_req, res) => {
      res.writeHead(200);
      res.write('partial');
    });
    // 2 s, not 300 ms: on a loaded machine the headers alone can take longer than 300 ms to arrive.
    const started = performance.now();
    const result = await sendWebhook(signed(hook.url), { ...development, timeoutMs: 2000 });
    expect(result).toMatchObject({ status: 200, error: 'timed out after 2 s', responseExcerpt: 'partial' });
    expect(performance.now() - started).toBeLessThan(4000);
  });

  test('the default limit is 10 s', async () => {
    const hook = await receiver(() => {});
    const pending = sendWebhook(signed(hook.url), development);
    const result = await pending;
    expect(result.error).toBe('timed out after 10 s');
    expect(result.durationMs).toBeGreaterThanOrEqual(9990);
    // The error names the limit; the bound only rules out a much longer one (a loaded CI machine fired it 2.8 s late).
    expect(result.durationMs).toBeLessThan(15_000);
  }, 20_000);

  test('an endless body is read to 64 KB only, and the attempt returns promptly', async () => {
    let written = 0;
    const hook = await receiver((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      const chunk = Buffer.alloc(16 * 1024, 'y');
      const pump = () => {
        while (!res.destroyed && res.write(chunk)) written += chunk.length;
        if (!res.destroyed) res.once('drain', pump);
      };
      pump();
    });
    const started = performance.now();
    const result = await sendWebhook(signed(hook.url), { ...development, timeoutMs: 5000 });
    expect(performance.now() - started).toBeLessThan(2000);
    expect(result.status).toBe(200);
    expect(result.error).toBeUndefined();
    expect(result.responseExcerpt).toBe('y'.repeat(1024));
    expect(result.responseBytes).toBeGreaterThanOrEqual(MAX_RESPONSE_BYTES);
    expect(result.responseBytes).toBeLessThanOrEqual(2 * MAX_RESPONSE_BYTES);
    await until(() => hook.closedConnections === 1, 'the receiver sees its connection closed', 2000);
    expect(written).toBeGreaterThan(0);
  });
});

describe('a receiver that cannot be reached', () => {
  test('a closed port is "connection refused"', async () => {
    const port = await closedPort();
    const started = performance.now();
    const result = await sendWebhook(signed(`http://127.0.0.1:${port}/hook`), development);
    expect(result).toEqual({ durationMs: expect.any(Number), error: 'connection refused', responseBytes: 0 });
    expect(performance.now() - started).toBeLessThan(2000);
  });

  test('a name that does not resolve', async () => {
    const lookup: Resolver = async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND gone.example'), { code: 'ENOTFOUND' });
    };
    expect(await sendWebhook(signed('http://gone.example/hook'), { ...development, lookup })).toMatchObject({
      error: 'gone.example could not be resolved (ENOTFOUND)',
    });
  });

  test('a resolver that never answers counts against the time limit', async () => {
    const started = performance.now();
    const result = await sendWebhook(signed('http://slow.example/hook'), {
      ...development,
      lookup: () => new Promise(() => {}),
      timeoutMs: 200,
    });
    expect(result.error).toBe('timed out after 200 ms');
    expect(performance.now() - started).toBeLessThan(2000);
  });

  test('a server that is not https is a TLS failure in one line', async () => {
    const hook = await receiver((_req, res) => res.end());
    const result = await sendWebhook(signed(`https://127.0.0.1:${hook.port}/hook`), development);
    expect(result.status).toBeUndefined();
    expect(result.error).toMatch(/^TLS handshake failed/);
    expect(result.error).not.toMatch(/\n|\bat /);
  });
});

describe('in production', () => {
  test('a loopback literal is refused before any connection', async () => {
    const hook = await receiver((_req, res) => res.end(), { tls });
    const result = await sendWebhook(signed(`https://127.0.0.1:${hook.port}/hook`), { production: true, ca: tls.cert });
    expect(result).toEqual({
      durationMs: expect.any(Number),
      error: 'refused: 127.0.0.1 is a loopback address',
      responseBytes: 0,
    });
    expect(hook.connections).toBe(0);
  });

  test('localhost is refused through the system resolver', async () => {
    const hook = await receiver((_req, res) => res.end(), { tls });
    const result = await sendWebhook(signed(`https://localhost:${hook.port}/hook`), { production: true });
    expect(result.error).toMatch(/^refused: (127\.0\.0\.1|::1) is a loopback address$/);
    expect(hook.connections).toBe(0);
  });

  test('http is refused, even to an allowed host', async () => {
    const hook = await receiver((_req, res) => res.end());
    const result = await sendWebhook(signed(hook.url), { production: true, allowHosts: parseAllowHosts('127.0.0.1') });
    expect(result.error).toBe('refused: url must use https in production');
    expect(hook.connections).toBe(0);
  });

  test('an allow-listed host is delivered to over TLS, named as the URL names it', async () => {
    const secret = newWebhookSecret();
    const hook = await receiver(
      (req, res, text) => {
        new Webhook(secret).verify(text, req.headers as Record<string, string>);
        res.end('ok');
      },
      { tls },
    );
    const request = signed(`https://hooks.test:${hook.port}/hook`, secret);
    const lookup = resolver(['127.0.0.1']);
    const refused = await sendWebhook(request, { production: true, lookup, ca: tls.cert });
    expect(refused.error).toBe('refused: 127.0.0.1 is a loopback address');
    expect(hook.connections).toBe(0);

    const allowHosts = parseAllowHosts('hooks.test');
    const result = await sendWebhook(request, { production: true, allowHosts, lookup, ca: tls.cert });
    expect(result).toMatchObject({ status: 200, responseExcerpt: 'ok' });
    expect(result.error).toBeUndefined();
    // The certificate names hooks.test and the Host header says so: only the address was pinned.
    expect(hook.received.map((r) => r.headers.host)).toEqual([`hooks.test:${hook.port}`]);
  });

  test('a certificate for another name is refused', async () => {
    const hook = await receiver((_req, res) => res.end('ok'), { tls });
    const result = await sendWebhook(signed(`https://other.test:${hook.port}/hook`), {
      production: true,
      allowHosts: parseAllowHosts('other.test'),
      lookup: resolver(['127.0.0.1']),
      ca: tls.cert,
    });
    expect(result.error).toBe('TLS certificate does not name the host');
    expect(hook.received).toHaveLength(0);
  });

  test('one refused address among public ones refuses the host', async () => {
    const result = await sendWebhook(signed('https://hooks.example.com/hook'), {
      production: true,
      lookup: resolver(['93.184.216.34', '::ffff:127.0.0.1']),
    });
    expect(result.error).toBe('refused: ::ffff:7f00:1 is an IPv4-mapped address of 127.0.0.1');
  });
});

describe('DNS rebinding', () => {
  test('the connection goes to the address resolved and checked, never to a second answer', async () => {
    const first = await receiver((_req, res) => res.end('first'));
    const second = await receiver((_req, res) => res.end('second'), { host: '127.0.0.2', port: first.port });
    const lookup = resolver(['127.0.0.1'], ['127.0.0.2']);
    const result = await sendWebhook(signed(`http://rebind.test:${first.port}/hook`), { ...development, lookup });
    expect(result).toMatchObject({ status: 200, responseExcerpt: 'first' });
    expect(lookup.calls).toEqual(['rebind.test']);
    expect(first.received.map((r) => r.headers.host)).toEqual([`rebind.test:${first.port}`]);
    expect(second.connections).toBe(0);
  });

  test('a public first answer then loopback: nothing reaches the loopback receiver', async () => {
    const local = await receiver((_req, res) => res.end('rebound'), { tls });
    const lookup = resolver(['8.8.8.8'], ['127.0.0.1']);
    const started = performance.now();
    const result = await sendWebhook(signed(`https://rebind.test:${local.port}/hook`), {
      production: true,
      lookup,
      ca: tls.cert,
      timeoutMs: 500,
    });
    expect(performance.now() - started).toBeLessThan(2000);
    // Offline the public address is unreachable; online nothing listens there: either way no answer.
    expect(result.status).toBeUndefined();
    expect(result.error).toEqual(expect.any(String));
    expect(lookup.calls).toEqual(['rebind.test']);
    expect(local.connections).toBe(0);
  });

  test('a loopback first answer is refused, whatever would come next', async () => {
    const local = await receiver((_req, res) => res.end('rebound'), { tls });
    const lookup = resolver(['127.0.0.1'], ['8.8.8.8']);
    const result = await sendWebhook(signed(`https://rebind.test:${local.port}/hook`), {
      production: true,
      lookup,
      ca: tls.cert,
    });
    expect(result.error).toBe('refused: 127.0.0.1 is a loopback address');
    expect(lookup.calls).toEqual(['rebind.test']);
    expect(local.connections).toBe(0);
  });

  test('a resolver answering a name instead of an address is refused, not resolved again', async () => {
    const local = await receiver((_req, res) => res.end('rebound'));
    const lookup = resolver(['localhost']);
    const result = await sendWebhook(signed(`http://rebind.test:${local.port}/hook`), { ...development, lookup });
    expect(result.error).toBe('refused: localhost is not an IP address');
    expect(local.connections).toBe(0);
  });
});
