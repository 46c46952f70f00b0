import { SingleBar } from 'cli-progress';
import type { CliIo } from './runtime.js';

const MB = 1_000_000;

/**
 * A progress bar over a file of `size` bytes: bytes read (as MB) and records seen. Only for people
 * watching a terminal, never in pipes or logs: undefined there, or when the size is unknown (stdin).
 */
export function fileProgress(io: CliIo, size: number | undefined) {
  if (!io.stderr.isTTY || !size) return undefined;
  const bar = new SingleBar({
    stream: io.stderr,
    etaBuffer: 50,
    format: '{bar} {percentage}% | {value}/{total} MB | {records} records | ETA: {eta_formatted}',
    // value and total are bytes; the percentage and ETA stay as cli-progress computes them.
    formatValue: (v, _options, type) => (type === 'value' || type === 'total' ? (v / MB).toFixed(1) : String(v)),
  });
  bar.start(size, 0, { records: 0 });
  let done = 0;
  return {
    update(bytes: number, records: number) {
      done += bytes;
      bar.update(Math.min(done, size), { records });
    },
    stop: () => bar.stop(),
  };
}
