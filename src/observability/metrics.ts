import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { RequestInfo } from '../http/locals.js';
import { PATHS } from '../http/paths.js';
import type { PoolStats } from '../stores/health-store.js';

/** Distinct GraphQL operation names one instance keeps as label values; any later name counts as `other`. */
export const MAX_OPERATION_LABELS = 50;

/** How long a scrape waits for the readiness check before it reports the instance not ready. */
const READY_TIMEOUT_MS = 2000;

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

/** What the scrape-time gauges read from the running instance. */
export interface MetricsSources {
  poolStats?: () => PoolStats | undefined;
  webhookBacklog?: () => Promise<{ pending: number; oldestAgeMs: number }>;
  openStreams?: () => number;
  /** What /readyz would answer now: the database answers and no shutdown has begun. */
  ready?: () => Promise<boolean>;
}

/** A GraphQL request's outcome, from its status and what the plugins learnt: a bounded label. */
export function graphqlOutcome(status: number, info: RequestInfo): string {
  if (status === 429) return 'rate_limited';
  if (status >= 500) return 'error';
  // A request error answered 200 (the legacy JSON media type) is refused all the same.
  if (status >= 400 || info.requestError) return 'refused';
  return 'ok';
}

/** Request labels as the request log records them. */
export interface RequestLabels {
  route: string;
  operation: string;
  status: string;
}

/** Prometheus metrics of one app instance (its own registry, so tests can run several). */
export function createMetrics(sources: MetricsSources = {}) {
  const { poolStats = () => undefined, webhookBacklog, openStreams = () => 0, ready } = sources;
  const registry = new Registry();
  // Unprefixed: the standard names (process_cpu_seconds_total, nodejs_eventloop_lag_seconds) dashboards expect.
  collectDefaultMetrics({ register: registry });
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
  // One readiness check at a time, its answer shared for a second (as the backlog's): concurrent scrapes, or a
  // flood of them on the public port, cost the database one query, and a database that hangs holds at most one.
  let checking: Promise<boolean> | undefined;
  const checkReady = () => {
    checking ??= ready!()
      .catch(() => false)
      .finally(() => setTimeout(() => (checking = undefined), 1000).unref());
    return checking;
  };
  new Gauge({
    name: 'roster_ready',
    help: 'Whether this instance is ready (what /readyz answers): 1 ready, 0 not (database unreachable or shutting down)',
    registers: [registry],
    async collect() {
      if (!ready) return;
      // A database that hangs must not hang the scrape: no answer within the bound is not ready.
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<boolean>((resolve) => (timer = setTimeout(resolve, READY_TIMEOUT_MS, false)));
      this.set((await Promise.race([checkReady().finally(() => clearTimeout(timer)), late])) ? 1 : 0);
    },
  });
  const graphqlRequests = new Counter({
    name: 'roster_graphql_requests_total',
    help: 'GraphQL requests (/graphql) by operation name and outcome: ok, refused (a request error or 4xx), rate_limited (429), error (5xx)',
    labelNames: ['operation', 'outcome'] as const,
    registers: [registry],
  });
  const cost = new Histogram({
    name: 'roster_graphql_cost_points',
    help: 'Cost of each GraphQL operation in points, computed before execution (replays included); above 100 is refused',
    buckets: [1, 2, 5, 10, 20, 50, 100, 250, 1000],
    registers: [registry],
  });
  const replays = new Counter({
    name: 'roster_graphql_replay_lookups_total',
    help: 'GraphQL answers looked for in the replay cache (RESPONSE_CACHE_MB) by result: hit (replayed), miss (computed)',
    labelNames: ['result'] as const,
    registers: [registry],
  });
  // '' is a request that ran no operation; 'anonymous' an operation without a name.
  const operationLabel = boundedLabel(MAX_OPERATION_LABELS, ['', 'anonymous']);
  /** Everything one finished request tells the metrics: its route series and, for /graphql, the rest. */
  function observeRequest(labels: RequestLabels, seconds: number, info: RequestInfo): void {
    requests.inc(labels);
    duration.observe(labels, seconds);
    if (labels.route !== PATHS.graphql) return;
    if (info.replay) replays.inc({ result: info.replay });
    // The schema download, the explorer and preflights run no operation and are no GraphQL requests; refusals are.
    if (labels.operation === '' && Number(labels.status) < 400 && !info.requestError) return;
    graphqlRequests.inc({ operation: labels.operation, outcome: graphqlOutcome(Number(labels.status), info) });
    if (info.cost !== undefined) cost.observe(info.cost);
  }
  return { registry, rejections, operationLabel, observeRequest, webhookDeliveries, streamEvents };
}

export type Metrics = ReturnType<typeof createMetrics>;
