import { SingleBar } from 'cli-progress';
import type { CliIo } from './runtime.js';

const MB = 1_000_000;
/** How far back the rate is read: long enough to smooth batch writes, short enough to follow a slowdown. */
const RATE_WINDOW_MS = 10_000;
/** At most this often the bar redraws: an update per line would cost more than the line. */
const REDRAW_MS = 200;

/** Time left at the rate of the last RATE_WINDOW_MS (a whole-run average would hide a slowdown). */
export function etaSeconds(
  samples: readonly (readonly [ms: number, done: number])[],
  total: number,
): number | undefined {
  const last = samples.at(-1);
  const first = samples.find(([ms]) => last && last[0] - ms <= RATE_WINDOW_MS);
  if (!last || !first || last[0] === first[0] || last[1] === first[1]) return undefined;
  const rate = (last[1] - first[1]) / (last[0] - first[0]);
  return Math.max(0, Math.ceil((total - last[1]) / rate / 1000));
}

/** "1h 02m", "3m 05s", "42s"; "…" before there is a rate. */
export function formatEta(seconds: number | undefined): string {
  if (seconds === undefined) return '…';
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  const pad = (n: number) => String(n).padStart(2, '0');
  return h > 0 ? `${h}h ${pad(m)}m` : m > 0 ? `${m}m ${pad(s)}s` : `${s}s`;
}

/**
 * A progress bar over a file of `size` bytes: bytes read (as MB), records seen and the time left at the
 * recent rate; once the whole file is read, that the last writes are going on. Only for people watching
 * a terminal, never in pipes or logs: undefined there, or when the size is unknown (stdin).
 */
export function fileProgress(io: CliIo, size: number | undefined, now: () => number = Date.now) {
  if (!io.stderr.isTTY || !size) return undefined;
  const bar = new SingleBar({
    stream: io.stderr,
    format: '{bar} {percentage}% | {value}/{total} MB | {records} records | {left}',
    // value and total are bytes; the percentage stays as cli-progress computes it.
    formatValue: (v, _options, type) => (type === 'value' || type === 'total' ? (v / MB).toFixed(1) : String(v)),
  });
  const samples: [number, number][] = [[now(), 0]];
  bar.start(size, 0, { records: 0, left: 'ETA: …' });
  let done = 0;
  let drawn = 0;
  return {
    update(bytes: number, records: number) {
      done = Math.min(done + bytes, size);
      const at = now();
      if (at - drawn < REDRAW_MS && done < size) return;
      drawn = at;
      samples.push([at, done]);
      while (samples.length > 2 && at - samples[1]![0] > RATE_WINDOW_MS) samples.shift();
      const left = done < size ? `ETA: ${formatEta(etaSeconds(samples, size))}` : 'read; writing the last records';
      bar.update(done, { records, left });
    },
    stop: () => bar.stop(),
  };
}
