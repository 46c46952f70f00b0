import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Duplex } from 'node:stream';
import { describeFault, statusFault, timedOut } from './attempt-faults.js';
import { bareHost, pinnedLookup, resolveTarget, type AddressPolicy, type CheckedAddress } from './resolve-target.js';
import { checkUrlForm, WebhookUrlRefused } from './webhook-url.js';
import { inPostSpan } from './webhook-spans.js';

// One webhook delivery attempt: resolve, check, connect only to the checked address, read a bounded answer.

/** How long one attempt may take in all: lookup, connect, TLS, the answer's headers and body. */
export const WEBHOOK_TIMEOUT_MS = 10_000;
/** The most of an answer that is read; the connection is closed after it. */
export const MAX_RESPONSE_BYTES = 64 * 1024;
/** The start of an answer's body kept with the attempt. */
export const EXCERPT_BYTES = 1024;
const USER_AGENT = 'Roster-Webhooks';
/** What an attempt ended by its caller reports. */
export const CANCELLED = 'cancelled';

const reasonOf = (signal: AbortSignal): string =>
  signal.reason instanceof Error ? signal.reason.message : String(signal.reason);

export interface WebhookRequest {
  url: string;
  /** The signature headers (lib/webhook-signature.ts) and any other; content-type defaults to JSON. */
  headers: Record<string, string>;
  body: string;
}

export interface SendOptions extends AddressPolicy {
  /** The whole attempt's limit (10 s). */
  timeoutMs?: number;
  /** Ends the attempt at once (the instance is stopping): it reports `cancelled`. */
  signal?: AbortSignal;
  /** Certificate authorities to trust instead of Node's (a test's own, a private CA). */
  ca?: string | Buffer;
}

export interface AttemptResult {
  /** The receiver's status, when it answered. */
  status?: number;
  durationMs: number;
  /** Why the attempt failed, one printable line; absent exactly when the receiver answered 2xx in time. */
  error?: string;
  /** The first EXCERPT_BYTES of the answer's body, as UTF-8 text (raw: escape it where it is shown). */
  responseExcerpt?: string;
  /** Bytes of the answer's body received before it ended or was cut off. */
  responseBytes: number;
}

type Outcome = Omit<AttemptResult, 'durationMs'>;

/**
 * POSTs one webhook attempt and reports how it went. Never throws for a network fault, a refusal or a
 * timeout: those are the attempt's `error`. Redirects are not followed. With tracing on, the attempt is an
 * HTTP client span and the receiver gets its `traceparent`.
 */
export function sendWebhook(request: WebhookRequest, options: SendOptions): Promise<AttemptResult> {
  return inPostSpan(request.url, request.headers, (headers) => sendOnce({ ...request, headers }, options));
}

async function sendOnce(request: WebhookRequest, options: SendOptions): Promise<AttemptResult> {
  const started = performance.now();
  const timeoutMs = options.timeoutMs ?? WEBHOOK_TIMEOUT_MS;
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new Error(timedOut(timeoutMs))), timeoutMs);
  const cancel = () => controller.abort(new Error(CANCELLED));
  options.signal?.addEventListener('abort', cancel, { once: true });
  if (options.signal?.aborted) cancel();
  let outcome: Outcome;
  try {
    outcome = await attempt(request, options, controller.signal);
  } catch (err) {
    outcome = { error: controller.signal.aborted ? reasonOf(controller.signal) : describeFault(err), responseBytes: 0 };
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', cancel);
  }
  return { ...outcome, durationMs: Math.round(performance.now() - started) };
}

async function attempt(request: WebhookRequest, options: SendOptions, signal: AbortSignal): Promise<Outcome> {
  const url = checkUrlForm(request.url, options.production);
  if (url instanceof WebhookUrlRefused) return { error: `refused: url ${url.reason}`, responseBytes: 0 };
  const resolution = await resolveTarget(url, options, signal);
  if (!resolution.ok) {
    return { error: resolution.refused ? `refused: ${resolution.reason}` : resolution.reason, responseBytes: 0 };
  }
  return post(url, resolution.addresses, request, options, signal);
}

/** The POST itself, to the checked addresses only; settles once, whatever happens first. */
function post(
  url: URL,
  addresses: CheckedAddress[],
  request: WebhookRequest,
  options: SendOptions,
  signal: AbortSignal,
): Promise<Outcome> {
  return new Promise((resolve) => {
    const body = Buffer.from(request.body, 'utf8');
    const kept: Buffer[] = [];
    let keptBytes = 0;
    let received = 0;
    let status: number | undefined;
    let settled = false;

    const settle = (error?: string) => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      // Whatever is left unread (an endless body, a stalled one) dies with the socket.
      req.destroy();
      const excerpt = status === undefined ? undefined : Buffer.concat(kept).toString('utf8');
      resolve({ status, error, responseExcerpt: excerpt, responseBytes: received });
    };
    const onAbort = () => settle(reasonOf(signal));

    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = send({
      protocol: url.protocol,
      // The name, not the address: the Host header and TLS server name are the URL's; the lookup pins the address.
      hostname: bareHost(url),
      port: url.port || undefined,
      path: `${url.pathname}${url.search}`,
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'user-agent': USER_AGENT,
        ...request.headers,
        'content-length': String(body.length),
      },
      lookup: pinnedLookup(addresses),
      // A fresh connection each time: no pooled socket outlives the check that allowed it.
      agent: false,
      ...(options.ca ? { ca: options.ca } : {}),
    });

    req.on('error', (err) => settle(describeFault(err)));
    // An upgrade was never asked for: a 101 answer is no delivery.
    req.on('upgrade', (res: IncomingMessage, socket: Duplex) => {
      socket.destroy();
      status = res.statusCode;
      settle(`answered ${res.statusCode} with a protocol switch`);
    });
    req.on('response', (res: IncomingMessage) => {
      status = res.statusCode ?? 0;
      res.on('data', (chunk: Buffer) => {
        received += chunk.length;
        if (keptBytes < EXCERPT_BYTES) {
          const part = chunk.subarray(0, EXCERPT_BYTES - keptBytes);
          kept.push(part);
          keptBytes += part.length;
        }
        if (received >= MAX_RESPONSE_BYTES) settle(statusFault(status!));
      });
      res.on('end', () => settle(statusFault(status!)));
      res.on('error', (err) => settle(describeFault(err)));
    });

    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    req.end(body);
  });
}
