import { parser } from '@prometheus-io/lezer-promql';

/** The metric families a Prometheus text scrape declares (`# TYPE`), and the sample names each one answers to. */
export function scrapedNames(text: string): { families: Map<string, string>; names: Set<string> } {
  const families = new Map<string, string>();
  for (const [, name, type] of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) families.set(name!, type!);
  const names = new Set<string>();
  for (const [name, type] of families) {
    names.add(name);
    // A histogram's or summary's samples carry suffixes a query names, not the family name.
    if (type === 'histogram') for (const s of ['_bucket', '_sum', '_count']) names.add(name + s);
    if (type === 'summary') for (const s of ['_sum', '_count']) names.add(name + s);
  }
  return { families, names };
}

/** The value of one sample, by its exact name and labels as prom-client writes them (`name{a="b"}`); NaN if absent. */
export function sample(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? NaN : Number(line.slice(series.length + 1));
}

/** Grafana's interval variables are no PromQL: a fixed duration stands in for them before parsing. */
const GRAFANA_INTERVALS = /\$__(rate_interval|interval|range)\b/g;

/**
 * The metric names a PromQL expression selects, read by Prometheus' own grammar (lezer-promql): the identifier
 * of every vector selector, never a function, label, keyword or duration. Throws where the expression does not parse.
 */
export function promqlMetricNames(expr: string): string[] {
  const source = expr.replace(GRAFANA_INTERVALS, '5m');
  const tree = parser.parse(source);
  const names: string[] = [];
  const cursor = tree.cursor();
  do {
    if (cursor.type.isError) throw new Error(`PromQL does not parse at ${cursor.from}: ${source}`);
    if (cursor.name !== 'VectorSelector') continue;
    const identifier = cursor.node.getChild('Identifier');
    // A selector by {__name__=...} alone would escape the check: every selector names its metric.
    if (!identifier) throw new Error(`a selector without a metric name: ${source}`);
    names.push(source.slice(identifier.from, identifier.to));
  } while (cursor.next());
  return names;
}
