import { Writable } from 'node:stream';
import { pino, type Level, type Logger } from 'pino';

/** A line as pino writes it: JSON with its level (30 info, 40 warn, 50 error), message and fields. */
export interface LogLine {
  level: number;
  msg?: string;
  err?: { message?: string; stack?: string };
  [field: string]: unknown;
}

/** A pino logger at `level` whose lines are kept in `lines`, each parsed, in the order written. */
export function capturedLog(level: Level = 'info'): { logger: Logger; lines: LogLine[] } {
  const lines: LogLine[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n')) if (line) lines.push(JSON.parse(line) as LogLine);
      done();
    },
  });
  return { logger: pino({ level }, sink), lines };
}
