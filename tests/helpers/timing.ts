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
/**
 * Bound for any one answer to hostile input, the slowest kind included: a sign-in form checks a password,
 * a page renders, Node waits out a slow sender.
 */
export const ANSWER_MS = 5000;
/** Bound for a burst of good and hostile requests sent together, until the last is answered. */
export const BURST_MS = 5000;
/** Bound for the slowest /healthz answer while hostile requests are being refused (one old-style stall took 5–12 s). */
export const HEALTH_MS = 3000;

/** Polls `url`/healthz while `work` runs (each answer must be a 200); returns the slowest answer, in ms. */
export async function slowestHealthCheckDuring(url: string, work: () => Promise<void>): Promise<number> {
  let slowest = 0;
  let done = false;
  const poll = (async () => {
    while (!done) {
      const started = performance.now();
      const res = await fetch(`${url}/healthz`);
      expect(res.status).toBe(200);
      slowest = Math.max(slowest, performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  })();
  try {
    await work();
  } finally {
    done = true;
    await poll;
  }
  return slowest;
}
