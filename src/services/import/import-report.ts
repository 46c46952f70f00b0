import { DomainError } from '../errors.js';
import { printable } from '../../lib/text.js';

// What an import reports: its counts, the bad lines of a dry run, the refusal of a real run.

export interface ImportCounts {
  users: number;
  events: number;
  registrations: number;
}

export interface LineError {
  line: number;
  reason: string;
}

/** What a dry run found: the first bad lines, how many more there were, and the good records by type. */
export interface DryRunReport {
  ok: boolean;
  errors: LineError[];
  more: number;
  counts: ImportCounts;
}

export class ImportError extends DomainError {
  constructor(
    readonly line: number,
    reason: string,
  ) {
    super(`line ${line}: ${reason}`);
  }
}

/** Bad lines a dry run lists; the rest are only counted. */
export const MAX_LISTED_ERRORS = 100;

/** Called with each bad line: throws (an import) or notes it and lets the line be skipped (a dry run). */
export type Fail = (line: number, reason: string) => void;

/** A dry run's bad lines: the lowest-numbered ones listed in line order, the rest counted. */
export class BadLines {
  readonly listed: LineError[] = [];
  more = 0;

  readonly fail: Fail = (line, reason) => {
    let at = this.listed.length;
    while (at > 0 && this.listed[at - 1]!.line > line) at -= 1;
    this.listed.splice(at, 0, { line, reason });
    if (this.listed.length > MAX_LISTED_ERRORS) {
      this.listed.pop();
      this.more += 1;
    }
  };
}

/** How many characters of a bad line's reason are kept (a reason may quote the line's values). */
const MAX_REASON = 500;

/** A bad line's reason: one line, bounded, printable (the rules quote values only that way; this is the backstop). */
export const reasonOf = (err: unknown) => printable(err instanceof Error ? err.message : String(err), MAX_REASON);
