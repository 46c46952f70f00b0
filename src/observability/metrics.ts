import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { PoolStats } from '../stores/health-store.js';

/** Distinct GraphQL operation names one instance keeps as label values; any later name counts as `other`. */
export const MAX_OPERATION_LABELS = 50;

/**
 * Clients choose operation names: the first `max` distinct ones become label values, the rest `other`,
 * so the number of series stays bounded however many names arrive. `always` values never count.
 */
export function boundedLabel(max: number, always: readonly string[] = []): (value: string) => string {
  const kept = new Set<string>(always);
  return (value) => {
    if (kept.has(value)) return value;
    if (kept.size - always.length >= max) return 'other';
    kept.add(value);
    return value;
  };
}

/** Prometheus metrics of one app instance (its own registry, so tests can run several). */
export function createMetrics(
  poolStats: () => PoolStats | undefined = () => undefined,
  webhookBacklog?: () => Promise<{ pending: number; oldestAgeMs: number }>,
  openStreams: () => number = () => 0,
) {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'roster_' });
  const requests = new Counter({
    name: 'roster_http_requests_total',
    help: 'HTTP requests by route, GraphQL operation name and status',
    labelNames: ['route', 'operation', 'status'] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'roster_http_request_duration_seconds',
    help: 'HTTP request latency by route, GraphQL operation name and status',
    labelNames: ['route', 'operation', 'status'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });
  const rejections = new Counter({
    name: 'roster_rejections_total',
    help: 'Requests refused by a limit: rate_limit (points spent), login_throttle (failed sign-ins), reset_throttle (reset mails), authorize_throttle (sign-in and sign-out requests per address), app_change_throttle (app changes per user), timeout, stream_limit_instance and stream_limit_owner (live streams open at this instance)',
    labelNames: ['reason'] as const,
    registers: [registry],
  });
  new Gauge({
    name: 'roster_db_pool_connections',
    help: 'Database pool connections by state',
    labelNames: ['state'] as const,
    registers: [registry],
    collect() {
      const pool = poolStats();
      if (!pool) return;
      this.set({ state: 'used' }, pool.used);
      this.set({ state: 'free' }, pool.free);
      this.set({ state: 'pending' }, pool.pending);
    },
  });
  const webhookDeliveries = new Counter({
    name: 'roster_webhook_deliveries_total',
    help: 'Webhook delivery attempts made by this instance by outcome: delivered, retried (failed, to be tried again), failed (the schedule ran out), skipped (not sent: the app may not see the change)',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  // Read from the database at scrape time (once for both gauges): every instance reports the one shared queue.
  // A database that does not answer leaves the gauges as they were rather than failing the whole scrape.
  let reading: Promise<{ pending: number; oldestAgeMs: number } | undefined> | undefined;
  const readBacklog = () => {
    reading ??= webhookBacklog!()
      .catch(() => undefined)
      .finally(() => setTimeout(() => (reading = undefined), 1000).unref());
    return reading;
  };
  new Gauge({
    name: 'roster_webhook_pending_deliveries',
    help: 'Webhook deliveries waiting to be sent (every instance), of enabled webhooks',
    registers: [registry],
    async collect() {
      const backlog = webhookBacklog && (await readBacklog());
      if (backlog) this.set(backlog.pending);
    },
  });
  new Gauge({
    name: 'roster_webhook_oldest_pending_seconds',
    help: 'How long the oldest webhook delivery still waiting to be sent has waited, in seconds (0: none)',
    registers: [registry],
    async collect() {
      const backlog = webhookBacklog && (await readBacklog());
      if (backlog) this.set(backlog.oldestAgeMs / 1000);
    },
  });
  new Gauge({
    name: 'roster_live_streams',
    help: 'Live streams (/graphql/stream) open at this instance',
    registers: [registry],
    collect() {
      this.set(openStreams());
    },
  });
  const streamEvents = new Counter({
    name: 'roster_live_events_total',
    help: 'Results written to live streams by this instance: changes, and the errors that end a stream',
    registers: [registry],
  });
  // '' is a request that ran no operation; 'anonymous' an operation without a name.
  const operationLabel = boundedLabel(MAX_OPERATION_LABELS, ['', 'anonymous']);
  return { registry, requests, duration, rejections, operationLabel, webhookDeliveries, streamEvents };
}

export type Metrics = ReturnType<typeof createMetrics>;
