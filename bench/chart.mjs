// A small SVG bar chart of req/s per server, one group per workload (no charting dependency needed for bars).
const esc = (s) => String(s).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);
const color = (name) => (name === 'Roster' ? '#2453d6' : name.startsWith('Plain') ? '#d67a24' : '#9aa3b2');

/** sections: [{ title, summary: [{ name, rps }] }] */
export function svgChart(database, sections) {
  const width = 760;
  const bar = 24;
  const gap = 10;
  const left = 290;
  const max = Math.max(...sections.flatMap((s) => s.summary.map((x) => x.rps)));
  const parts = [];
  let y = 22;
  parts.push(
    `<text x="10" y="${y}" font-weight="bold">${esc(database)}: requests per second (higher is better)</text>`,
  );
  for (const { title, summary } of sections) {
    y += 26;
    parts.push(`<text x="10" y="${y}" font-style="italic">${esc(title)}</text>`);
    y += 10;
    for (const s of summary) {
      const w = Math.max(1, ((width - left - 90) * s.rps) / max);
      parts.push(`<text x="${left - 8}" y="${y + bar / 2 + 5}" text-anchor="end">${esc(s.name)}</text>
<rect x="${left}" y="${y}" width="${w.toFixed(1)}" height="${bar}" fill="${color(s.name)}"/>
<text x="${left + w + 6}" y="${y + bar / 2 + 5}">${Math.round(s.rps).toLocaleString('en-US')} req/s</text>`);
      y += bar + gap;
    }
  }
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${y + 10}" font-family="sans-serif" font-size="13">
${parts.join('\n')}
</svg>
`;
}
