// Durations as settings spell them: `5s`, `30m`, `2h`, `5d`.

const UNITS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
/** The longest one duration: a year. */
const MAX_MS = 365 * 86_400_000;
const MAX_COUNT = 50;

/** Comma-separated durations in milliseconds, or why the text is not such a list (a sentence's end). */
export function parseDurations(text: string): number[] | string {
  const parts = text.split(',');
  if (parts.length > MAX_COUNT) return `takes at most ${MAX_COUNT} durations`;
  const values: number[] = [];
  for (const part of parts) {
    const ms = durationMs(part) ?? NaN;
    if (!(ms > 0 && ms <= MAX_MS)) return 'takes durations like 5s, 30m, 2h or 5d (each at most 365d)';
    values.push(ms);
  }
  return values;
}

/** One duration (`30d`: up to six digits and a unit) in milliseconds; undefined when it is not spelled so. */
export function durationMs(text: string): number | undefined {
  const match = /^(\d{1,6})([smhd])$/.exec(text.trim());
  return match ? Number(match[1]) * UNITS[match[2]!]! : undefined;
}
