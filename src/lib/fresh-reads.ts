/**
 * Shares reads among concurrent callers without ever handing one a value read before it asked: a caller
 * that arrives while a read is in flight (which may have started before it) waits for the next read,
 * which starts as soon as that one ends and serves every caller that queued for it.
 */
export function freshReads<T>(read: () => Promise<T>): () => Promise<T> {
  let inFlight: Promise<T> | undefined;
  let queued: Promise<T> | undefined;
  const start = (): Promise<T> => {
    const current = read();
    inFlight = current;
    const done = () => {
      if (inFlight === current) inFlight = undefined;
    };
    current.then(done, done);
    return current;
  };
  return () => {
    if (!inFlight) return start();
    queued ??= inFlight
      .then(
        () => undefined,
        () => undefined,
      )
      .then(() => {
        queued = undefined;
        return start();
      });
    return queued;
  };
}
