import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { useSeededServer } from '../helpers/fixtures.js';
import { gql } from '../helpers/graphql.js';
import { promqlMetricNames, sample, scrapedNames } from '../helpers/prometheus.js';
import { createMetrics, graphqlOutcome } from '../../src/observability/metrics.js';

// The shipped dashboard and alert rules, checked against a live /metrics: every metric they name is scraped.
const root = new URL('../../', import.meta.url);
const read = (path: string) => readFileSync(new URL(path, root), 'utf8');

interface Target {
  refId: string;
  expr: string;
  datasource?: { type: string; uid: string };
}
interface Panel {
  id: number;
  type: string;
  title: string;
  gridPos: { h: number; w: number; x: number; y: number };
  datasource?: { type: string; uid: string };
  targets?: Target[];
}
interface Rule {
  alert?: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}
const dashboard = JSON.parse(read('docs/grafana/roster-dashboard.json')) as {
  uid: string;
  panels: Panel[];
  templating: { list: { name: string; type: string; query: string | { query: string } }[] };
};
const rules = parse(read('docs/prometheus/roster-alerts.yml')) as { groups: { name: string; rules: Rule[] }[] };
const panels = dashboard.panels.filter((p) => p.type !== 'row');
const alerts = rules.groups.flatMap((g) => g.rules);

/** Series Prometheus makes itself at each scrape: no /metrics has them. */
const PROMETHEUS_OWN = new Set(['up']);

// A budget of 8 points: the organizer's app is refused within a few requests.
const t = useSeededServer({ RATE_LIMIT_POINTS: '8' });
let scrape: string;

beforeAll(async () => {
  const { server, fx } = t;
  const launch = 'query Launch { event(slug: "public-meetup") { name } }';
  // The same answer twice: computed once, then replayed.
  expect((await gql(server, fx.tokens.otherApp, launch)).status).toBe(200);
  expect((await gql(server, fx.tokens.otherApp, launch)).status).toBe(200);
  expect((await gql(server, undefined, launch)).status).toBe(401);
  // A validation error in an application/json answer is a 200, and refused all the same.
  expect((await gql(server, fx.tokens.otherApp, 'query Nope { nope }')).status).toBe(200);
  let status = 0;
  for (let i = 0; i < 10 && status !== 429; i += 1) {
    ({ status } = await gql(server, fx.tokens.organizerApp, `query Spend${i} { viewer { tokenKind } }`));
  }
  expect(status).toBe(429);
  scrape = await (await fetch(`${server.url}/metrics`)).text();
});

test("Node's process and runtime metrics keep their standard names", () => {
  const { families } = scrapedNames(scrape);
  for (const name of ['process_cpu_seconds_total', 'process_resident_memory_bytes', 'nodejs_eventloop_lag_seconds']) {
    expect(families.has(name)).toBe(true);
  }
  expect([...families.keys()].filter((name) => /^roster_(process|nodejs)_/.test(name))).toEqual([]);
});

test('the domain series say what happened: operations by outcome, cost, replays, refusals, readiness', () => {
  const requests = (operation: string, outcome: string) =>
    sample(scrape, `roster_graphql_requests_total{operation="${operation}",outcome="${outcome}"}`);
  expect(requests('Launch', 'ok')).toBe(2);
  // The 401 and the invalid document: neither got as far as an operation, so neither has a name.
  expect(requests('', 'refused')).toBe(2);
  // Refused by its cost against the spent budget, after its operation was resolved: it has its name.
  expect(scrape).toMatch(/^roster_graphql_requests_total\{operation="Spend\d",outcome="rate_limited"\} 1$/m);
  expect(sample(scrape, 'roster_graphql_replay_lookups_total{result="hit"}')).toBe(1);
  expect(sample(scrape, 'roster_graphql_replay_lookups_total{result="miss"}')).toBeGreaterThanOrEqual(2);
  expect(sample(scrape, 'roster_graphql_cost_points_count')).toBeGreaterThanOrEqual(3);
  expect(sample(scrape, 'roster_graphql_cost_points_bucket{le="1"}')).toBeGreaterThanOrEqual(3);
  expect(sample(scrape, 'roster_rejections_total{reason="rate_limit"}')).toBeGreaterThanOrEqual(1);
  expect(sample(scrape, 'roster_ready')).toBe(1);
  expect(sample(scrape, 'roster_live_streams')).toBe(0);
});

test('every metric a dashboard panel or variable names is on /metrics', () => {
  const { names } = scrapedNames(scrape);
  const named = new Map<string, string[]>();
  for (const panel of panels) {
    for (const target of panel.targets ?? [])
      named.set(`${panel.title} ${target.refId}`, promqlMetricNames(target.expr));
  }
  for (const variable of dashboard.templating.list.filter((v) => v.type === 'query')) {
    const query = typeof variable.query === 'string' ? variable.query : variable.query.query;
    named.set(
      `$${variable.name}`,
      [...query.matchAll(/label_values\(\s*([a-zA-Z_:][\w:]*)/g)].map((m) => m[1]!),
    );
  }
  const missing = [...named].flatMap(([where, metrics]) =>
    metrics.filter((m) => !names.has(m) && !PROMETHEUS_OWN.has(m)).map((m) => `${where}: ${m}`),
  );
  expect(missing).toEqual([]);
  // Each panel queries something, and the check above saw it.
  for (const [where, metrics] of named) expect([where, metrics.length > 0]).toEqual([where, true]);
});

test('every metric an alert rule names is on /metrics, and every rule is complete', () => {
  const { names } = scrapedNames(scrape);
  expect(alerts.length).toBeGreaterThanOrEqual(6);
  for (const rule of alerts) {
    expect(rule).toMatchObject({
      alert: expect.stringMatching(/^Roster[A-Za-z]+$/),
      for: expect.stringMatching(/^\d+[smh]$/),
      labels: { severity: expect.stringMatching(/^(critical|warning|info)$/) },
      annotations: { summary: expect.any(String), description: expect.any(String) },
    });
    const metrics = promqlMetricNames(rule.expr);
    expect(metrics.length).toBeGreaterThan(0);
    expect([rule.alert, metrics.filter((m) => !names.has(m) && !PROMETHEUS_OWN.has(m))]).toEqual([rule.alert, []]);
  }
  expect(new Set(alerts.map((r) => r.alert)).size).toBe(alerts.length);
  // What the issue asks to be alerted on: errors, latency, readiness, and the webhook backlog.
  const watched = new Set(alerts.flatMap((r) => promqlMetricNames(r.expr)));
  for (const name of [
    'up',
    'roster_ready',
    'roster_http_requests_total',
    'roster_http_request_duration_seconds_bucket',
    'roster_webhook_pending_deliveries',
    'roster_webhook_oldest_pending_seconds',
  ]) {
    expect(watched.has(name)).toBe(true);
  }
});

test('the dashboard is a Grafana dashboard model: unique ids, a grid of 24, every query on the chosen data source', () => {
  expect(dashboard.uid).toBe('roster-overview');
  const ids = dashboard.panels.map((p) => p.id);
  expect(new Set(ids).size).toBe(ids.length);
  const source = dashboard.templating.list.find((v) => v.name === 'DS_PROMETHEUS');
  expect(source).toMatchObject({ type: 'datasource', query: 'prometheus' });
  const chosen = { type: 'prometheus', uid: '${DS_PROMETHEUS}' };
  for (const panel of dashboard.panels) {
    const { x, w, h } = panel.gridPos;
    expect(x + w <= 24 && w > 0 && h > 0).toBe(true);
    if (panel.type === 'row') continue;
    expect(panel.datasource).toEqual(chosen);
    expect(panel.targets!.length).toBeGreaterThan(0);
    const refIds = panel.targets!.map((target) => target.refId);
    expect(new Set(refIds).size).toBe(refIds.length);
    for (const target of panel.targets!) expect(target.datasource).toEqual(chosen);
  }
  // The panels the issue asks for, by what they query.
  const queried = new Set(panels.flatMap((p) => p.targets!.flatMap((target) => promqlMetricNames(target.expr))));
  for (const name of [
    'roster_graphql_requests_total',
    'roster_http_request_duration_seconds_bucket',
    'roster_rejections_total',
    'roster_graphql_replay_lookups_total',
    'roster_graphql_cost_points_bucket',
    'roster_webhook_pending_deliveries',
    'roster_webhook_deliveries_total',
    'roster_live_streams',
    'roster_db_pool_connections',
    'process_cpu_seconds_total',
    'process_resident_memory_bytes',
    'nodejs_eventloop_lag_p99_seconds',
    'roster_ready',
  ]) {
    expect([name, queried.has(name)]).toEqual([name, true]);
  }
});

test("the metrics table of docs/operations.md lists exactly Roster's own families on /metrics", () => {
  const operations = read('docs/operations.md');
  const table = operations.slice(operations.indexOf('## Metrics'), operations.indexOf('### Dashboards and alerts'));
  const documented = [...table.matchAll(/^\| `(roster_[a-z_]+)` +\| (\w+) /gm)].map(([, name, type]) => [name, type]);
  const scraped = [...scrapedNames(scrape).families].filter(([name]) => name.startsWith('roster_'));
  expect(documented.sort()).toEqual(scraped.sort());
});

describe('roster_ready', () => {
  const readyValue = async (ready: () => Promise<boolean>) => {
    const { registry } = createMetrics({ ready });
    return sample(await registry.metrics(), 'roster_ready');
  };

  test('is what the readiness check says, and 0 when the check does not answer within 2 s', async () => {
    expect(await readyValue(async () => true)).toBe(1);
    expect(await readyValue(async () => false)).toBe(0);
    const started = Date.now();
    expect(await readyValue(() => new Promise<boolean>(() => undefined))).toBe(0);
    expect(Date.now() - started).toBeLessThan(5000);
  });
});

test('a GraphQL outcome is one of four', () => {
  expect(graphqlOutcome(200, {})).toBe('ok');
  expect(graphqlOutcome(304, {})).toBe('ok');
  expect(graphqlOutcome(200, { requestError: true })).toBe('refused');
  expect(graphqlOutcome(400, {})).toBe('refused');
  expect(graphqlOutcome(429, {})).toBe('rate_limited');
  expect(graphqlOutcome(503, {})).toBe('error');
});

test("the names are read by PromQL's grammar: functions, labels and durations are no metrics; a typo fails", () => {
  expect(
    promqlMetricNames('histogram_quantile(0.9, sum by (le, job) (rate(a_bucket{job=~"$job"}[$__rate_interval]))) / b'),
  ).toEqual(['a_bucket', 'b']);
  expect(promqlMetricNames('max by (job) (delta(c[30m])) > 0 and on (job) up == 0')).toEqual(['c', 'up']);
  expect(() => promqlMetricNames('sum(rate(a[5m])')).toThrow(/does not parse/);
  expect(() => promqlMetricNames('{__name__="a"}')).toThrow(/without a metric name/);
});
