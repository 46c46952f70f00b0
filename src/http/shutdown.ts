import type { Server, ServerResponse } from 'node:http';
import type { Logger } from 'pino';

/** After the delay, in-flight requests get this long to finish before the process gives up on them. */
export const DRAIN_LIMIT_MS = 10_000;

export interface Stoppable {
  server: Server;
  /** Listeners closed once `server` has drained (the METRICS_PORT one): they keep answering until then. */
  alsoClose?: Server[];
  logger: Logger;
  /** SHUTDOWN_DELAY_MS: how long to keep serving after SIGTERM, so a balancer can take the instance out. */
  delayMs: number;
  /** Readiness fails from now on. */
  notReady(): void;
  /** Closes what the app holds (timers, the database) once no request is left. */
  release(): Promise<void>;
  exit(code: number): void;
}

/**
 * SIGTERM: readiness fails at once; the server keeps accepting and serving for `delayMs`, answering with
 * `Connection: close`; then it stops accepting, drains in-flight requests and exits 0. SIGINT skips the
 * delay, and so does a second signal during it.
 */
export function stopGracefullyOnSignals(s: Stoppable): void {
  let stopping = false;
  let skipDelay = () => {};
  // Responses under way: one begun before the signal but answered after it must say Connection: close too.
  const underWay = new Set<ServerResponse>();
  s.server.prependListener('request', (_req, res) => {
    underWay.add(res);
    res.once('close', () => underWay.delete(res));
  });

  const stop = async (signal: NodeJS.Signals) => {
    if (stopping) return skipDelay();
    stopping = true;
    const delayMs = signal === 'SIGINT' ? 0 : s.delayMs;
    s.logger.info({ signal, delayMs }, 'shutting down');
    s.notReady();
    // Clients, balancers included, open a new connection for their next request: to another instance.
    s.server.prependListener('request', (_req, res) => res.setHeader('Connection', 'close'));
    for (const res of underWay) if (!res.headersSent) res.setHeader('Connection', 'close');
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, delayMs);
      skipDelay = () => {
        clearTimeout(timer);
        resolve();
      };
    });

    s.logger.info('draining in-flight requests');
    setTimeout(() => {
      s.logger.error({ limitMs: DRAIN_LIMIT_MS }, 'in-flight requests did not finish in time; exiting');
      s.exit(1);
    }, DRAIN_LIMIT_MS).unref();
    const closed = new Promise<void>((resolve) => s.server.close(() => resolve()));
    // Keep-alive connections go idle once their last response is sent: close them as they do.
    s.server.closeIdleConnections();
    setInterval(() => s.server.closeIdleConnections(), 100).unref();
    await closed;
    await Promise.all((s.alsoClose ?? []).map(closeNow));
    await s.release();
    s.exit(0);
  };

  // A listener's promise is dropped by the emitter: the catch is where a failed shutdown ends.
  const handle = (signal: NodeJS.Signals) =>
    void stop(signal).catch((err: unknown) => {
      s.logger.error({ err }, 'shutdown failed');
      s.exit(1);
    });
  process.on('SIGTERM', handle);
  process.on('SIGINT', handle);
}

/** Stops accepting and ends every connection at once: for listeners whose requests are short and repeatable. */
function closeNow(server: Server): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeAllConnections();
  return closed;
}
