import type { Services } from '../../services/services.js';
import { createLoaders, type Loaders } from '../loaders.js';

/** Log positions whose loaders are kept: the newest batches, which up-to-date streams read at once. */
const KEPT = 4;

/**
 * Loaders shared by every stream of an instance that reads the batch ending at the same log position: the
 * rows a change shows are the same whoever asks (each stream's access decides what it may see of them), so
 * a change sent to a thousand streams is looked up once, in one statement per kind, not a thousand times.
 */
export class SharedLoaders {
  private readonly byPosition = new Map<number, Loaders>();

  constructor(private readonly services: Services) {}

  at(position: number): Loaders {
    let loaders = this.byPosition.get(position);
    if (loaders) return loaders;
    loaders = createLoaders(this.services);
    this.byPosition.set(position, loaders);
    for (const key of this.byPosition.keys()) {
      if (this.byPosition.size <= KEPT) break;
      this.byPosition.delete(key);
    }
    return loaders;
  }
}
