/**
 * Time bounds for "this must not stall" tests. CI machines are slower and busier than a laptop, and one
 * run can land on a garbage collection or a JIT compile: the in-process bound takes the fastest of a few
 * runs, and every bound sits far below what the faults they guard against cost (seconds to minutes).
 */

/** The fastest of `runs` timed calls of `work`, in ms. */
export function fastestRun(work: () => void, runs = 3): number {
  let fastest = Infinity;
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    work();
    fastest = Math.min(fastest, performance.now() - started);
  }
  return fastest;
}

/** Bound for one in-process analysis of a hostile document (linear walks take under 5 ms on a laptop). */
export const ANALYSIS_MS = 500;
/** Bound for one refused HTTP request carrying a hostile document. */
export const REFUSAL_MS = 2000;
/** Bound for the slowest /healthz answer while hostile requests are being refused. */
export const HEALTH_MS = 1500;
