import { PassThrough, Readable } from 'node:stream';
import { etaSeconds, fileProgress, formatEta } from '../../src/cli/progress.js';

describe('the time left of an import', () => {
  test('follows the rate of the last 10 s, not the whole run', () => {
    // 1 MB/s for 60 s, then 0.1 MB/s for 20 s: 20 MB left at the recent rate is 200 s, not ~24 s.
    const samples: [number, number][] = [];
    for (let s = 0; s <= 60; s += 1) samples.push([s * 1000, s * 1e6]);
    for (let s = 61; s <= 80; s += 1) samples.push([s * 1000, 60e6 + (s - 60) * 1e5]);
    expect(etaSeconds(samples, 62e6 + 20e6)).toBe(200);
  });

  test('is unknown before there is a rate', () => {
    expect(etaSeconds([], 100)).toBeUndefined();
    expect(etaSeconds([[0, 0]], 100)).toBeUndefined();
    expect(
      etaSeconds(
        [
          [0, 0],
          [1000, 0],
        ],
        100,
      ),
    ).toBeUndefined();
    expect(formatEta(undefined)).toBe('…');
  });

  test.each([
    [0, '0s'],
    [42, '42s'],
    [185, '3m 05s'],
    [3720, '1h 02m'],
  ])('%d s reads %s', (seconds, text) => expect(formatEta(seconds)).toBe(text));
});

describe('the bar on a terminal', () => {
  const terminal = () => {
    const stderr = Object.assign(new PassThrough(), { isTTY: true });
    const chunks: Buffer[] = [];
    stderr.on('data', (c: Buffer) => chunks.push(c));
    const io = { stdout: new PassThrough(), stderr, stdin: Readable.from([]), env: {} };
    return { io, text: () => Buffer.concat(chunks).toString() };
  };

  test('shows the time left at the recent rate', () => {
    const { io, text } = terminal();
    let clock = 0;
    const bar = fileProgress(io, 100e6, () => clock)!;
    // 10 KB a line, 1 ms a line: 10 MB/s, so 1,000 lines in a second and 100 MB in 10 s.
    for (let line = 1; line <= 3000; line += 1) {
      clock = line;
      bar.update(10_000, line);
    }
    bar.stop();
    const out = text();
    expect(out).toContain('30.0/100.0 MB');
    expect(out).toContain('3000 records');
    expect(out).toContain('ETA: 7s');
  });

  test('says the last writes are going on once the whole file is read', () => {
    const { io, text } = terminal();
    let clock = 0;
    const bar = fileProgress(io, 1e6, () => clock)!;
    clock = 100;
    bar.update(500_000, 1);
    clock = 150;
    bar.update(500_000, 2);
    bar.stop();
    expect(text()).toContain('100% | 1.0/1.0 MB | 2 records | read; writing the last records');
  });

  test('is not drawn in a pipe or for standard input', () => {
    const { io } = terminal();
    expect(fileProgress({ ...io, stderr: Object.assign(new PassThrough(), { isTTY: false }) }, 100)).toBeUndefined();
    expect(fileProgress(io, undefined)).toBeUndefined();
  });
});
