import { withinReuseWindow, type EpochRead } from '../stores/rows-at-epoch.js';
import type { Stores } from '../stores/stores.js';

/**
 * The epochs by which a request may be served kept rows: those it read before it began, or, when it has been
 * held up past the reuse window since (a body sent slowly, a wait for a connection), the epochs read again now.
 */
export async function reuseEpochs(stores: Stores, at: EpochRead): Promise<EpochRead> {
  if (withinReuseWindow(at)) return at;
  // Taken before the read, which starts after it (epoch-store.ts): the rows are never older than this says.
  const readAt = performance.now();
  const { data, changes } = await stores.epochs.current();
  return { epoch: data, changes, readAt };
}
