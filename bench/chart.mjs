// A small SVG bar chart of req/s per server (no charting dependency needed for bars).
const esc = (s) => String(s).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);

export function svgChart(summary) {
  const width = 640;
  const bar = 28;
  const gap = 14;
  const left = 170;
  const max = Math.max(...summary.map((s) => s.rps));
  const height = 40 + summary.length * (bar + gap);
  const bars = summary.map((s, i) => {
    const y = 30 + i * (bar + gap);
    const w = Math.max(1, ((width - left - 90) * s.rps) / max);
    return `<text x="${left - 8}" y="${y + bar / 2 + 5}" text-anchor="end">${esc(s.name)}</text>
<rect x="${left}" y="${y}" width="${w.toFixed(1)}" height="${bar}" fill="${s.name === 'Roster' ? '#2453d6' : '#9aa3b2'}"/>
<text x="${left + w + 6}" y="${y + bar / 2 + 5}">${Math.round(s.rps).toLocaleString('en-US')} req/s</text>`;
  });
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="sans-serif" font-size="13">
<text x="${left}" y="18" font-weight="bold">Canonical query, requests per second (higher is better)</text>
${bars.join('\n')}
</svg>
`;
}
