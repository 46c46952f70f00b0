/** Why a stream was refused a slot. */
export type SlotRefusal = 'instance' | 'owner';

/**
 * Open streams counted at this instance: at most `max` in all and `perOwner` for one token owner. Each
 * instance counts its own: the limits guard what an instance holds (sockets, memory), which is per instance.
 */
export class StreamSlots {
  private total = 0;
  private readonly byOwner = new Map<string, number>();

  constructor(
    private readonly max: number,
    private readonly perOwner: number,
  ) {}

  get open(): number {
    return this.total;
  }

  /** A release function, or why no slot is free. */
  take(owner: string): (() => void) | SlotRefusal {
    if (this.total >= this.max) return 'instance';
    const held = this.byOwner.get(owner) ?? 0;
    if (held >= this.perOwner) return 'owner';
    this.total++;
    this.byOwner.set(owner, held + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.total--;
      const left = (this.byOwner.get(owner) ?? 1) - 1;
      if (left === 0) this.byOwner.delete(owner);
      else this.byOwner.set(owner, left);
    };
  }
}
