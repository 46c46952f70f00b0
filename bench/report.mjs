// The tables and chart of a run, from its JSON: `node bench/report.mjs bench/results/latest-sqlite.json`
// renders them again (e.g. after a change of layout) without measuring anything.
import { readFileSync, writeFileSync } from 'node:fs';
import { svgChart } from './chart.mjs';
import { CANONICAL_SLUG, REGISTRANTS, WORKLOADS, queryBody } from './dataset.mjs';

const fmt = (n, digits = 0) =>
  n === null || n === undefined || Number.isNaN(n)
    ? '–'
    : n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const ratio = (a, b) => (a && b ? fmt(a.rps / b.rps, 2) : '–');
// CPU × plain: the plain peer's CPU per request over this server's (above 1: this server spends less).
const cpuRatio = (a, b) => (a && b ? fmt(b.cpuMsPerRequest / a.cpuMsPerRequest, 2) : '–');
const find = (servers, prefix) => servers.find((s) => s.name.startsWith(prefix));

function workloadTable(summary, statements, pg) {
  const plain = find(summary, 'Plain');
  const ceiling = find(summary, 'Ceiling');
  // Roster's own stack written plainly: its column only when it ran.
  const apollo = find(summary, 'Apollo plain');
  const apolloHead = apollo ? ' × Apollo plain |' : '';
  return [
    `| server | req/s | p50 ms | p99 ms | × plain |${apolloHead} × ceiling | server CPU ms/request | CPU × plain |${pg ? ' PG CPU ms/request |' : ''} SQL/request | peak RSS MB | non-2xx |`,
    `| --- | ---: | ---: | ---: | ---: |${apollo ? ' ---: |' : ''} ---: | ---: | ---: |${pg ? ' ---: |' : ''} ---: | ---: | ---: |`,
    ...summary.map(
      (s) =>
        `| ${s.name} | ${fmt(s.rps)} | ${fmt(s.p50, 1)} | ${fmt(s.p99, 1)} | ${ratio(s, plain)} |${apollo ? ` ${ratio(s, apollo)} |` : ''} ${ratio(s, ceiling)} | ${fmt(s.cpuMsPerRequest, 2)} | ${cpuRatio(s, plain)} |${pg ? ` ${fmt(s.dbCpuMsPerRequest, 2)} |` : ''} ${s.name === 'Roster' && statements !== undefined ? statements : '–'} | ${fmt(s.rssMb)} | ${s.non2xx} |`,
    ),
  ];
}

function sweepTable(sweep) {
  const names = sweep[0].servers.map((s) => s.name);
  const both = names.includes('Roster') && names.some((n) => n.startsWith('Plain'));
  return [
    `| first: | ${names.map((n) => `${n.split(' (')[0]} req/s | p99 ms | CPU ms/request`).join(' | ')} |${both ? ' Roster × plain | CPU × plain |' : ''} SQL/request |`,
    `| ---: | ${names.map(() => '---: | ---: | ---:').join(' | ')} |${both ? ' ---: | ---: |' : ''} ---: |`,
    ...sweep.map(({ first, servers, statements }) => {
      const cells = servers.map((s) => `${fmt(s.rps)} | ${fmt(s.p99, 1)} | ${fmt(s.cpuMsPerRequest, 2)}`);
      const [roster, plain] = [find(servers, 'Roster'), find(servers, 'Plain')];
      const x = both ? ` ${ratio(roster, plain)} | ${cpuRatio(roster, plain)} |` : '';
      return `| ${first} | ${cells.join(' | ')} |${x} ${statements ?? '–'} |`;
    }),
  ];
}

/** The load average at the start and end; a result file without it prints none. */
const loadAverageOf = (report) =>
  report.loadAverage
    ? ` load average ${report.loadAverage.map((l) => l.toFixed(1)).join(' at the start, ')} at the end;`
    : '';

/** The Markdown tables and the SVG chart of a run's report. */
export function render(report) {
  const pg = report.database === 'PostgreSQL';
  const lines = [
    `${report.database}; machine: ${report.machine}; ${report.rounds} alternating rounds × ${report.duration} s, ${report.connections} connections, medians;${loadAverageOf(report)} ${report.date}`,
  ];
  for (const [workload, summary] of Object.entries(report.summaries)) {
    const statements = workload === 'repeated' ? report.statements[queryBody(CANONICAL_SLUG, 50)] : undefined;
    lines.push('', `**${WORKLOADS[workload].title}**`, '', ...workloadTable(summary, statements, pg));
  }
  if (report.sweep.length) {
    lines.push(
      '',
      `**page-size sweep (an event with ${fmt(REGISTRANTS)} registrants)**`,
      '',
      ...sweepTable(report.sweep),
    );
  }
  if (report.coldStartMs !== null) {
    lines.push(
      '',
      `cold start (node dist/server.js to a ready /readyz, empty database): ${fmt(report.coldStartMs)} ms`,
    );
  }
  const sections = Object.entries(report.summaries).map(([w, summary]) => ({ title: WORKLOADS[w].title, summary }));
  return { markdown: lines.join('\n') + '\n', svg: svgChart(report.database, sections) };
}

/** Writes the run's JSON, Markdown and SVG next to each other (`<base>.json`, `.md`, `.svg`). */
export function writeReport(base, report) {
  const { markdown, svg } = render(report);
  writeFileSync(`${base}.json`, JSON.stringify(report, null, 2) + '\n');
  writeFileSync(`${base}.md`, markdown);
  writeFileSync(`${base}.svg`, svg);
  return markdown;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const file = process.argv[2];
  console.log(writeReport(file.replace(/\.json$/, ''), JSON.parse(readFileSync(file, 'utf8'))));
}
