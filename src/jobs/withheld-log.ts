import type { Logger } from 'pino';

/** How often at most one address's withheld notifications are logged. */
const WITHHELD_LOG_INTERVAL_MS = 3_600_000;
/** Addresses remembered at most; past it the oldest is forgotten (and may be logged again sooner). */
const REMEMBERED_ADDRESSES = 10_000;

/**
 * Logs notifications withheld from an address that has not confirmed (or declined) a workspace's
 * notifications: once per address an hour at info, with how many were withheld since. The
 * workspace's own rule at work, not a fault: an error line per submission and address made 7,500
 * lines for one form (issue 38). The delivery log keeps each one, with its reason.
 */
export class WithheldLog {
  private readonly seen = new Map<string, { lastAt: number; since: number }>();

  constructor(
    private readonly log: Pick<Logger, 'info'>,
    private readonly intervalMs = WITHHELD_LOG_INTERVAL_MS,
    private readonly now: () => number = Date.now,
  ) {}

  /** One notification to `address` (normalised) was withheld; `about` names the job. */
  note(address: string, reason: string, about: Record<string, unknown>): void {
    const now = this.now();
    const entry = this.seen.get(address);
    if (entry && now - entry.lastAt < this.intervalMs) {
      entry.since++;
      return;
    }
    this.log.info({ ...about, recipient: address, withheldSinceLastLine: entry?.since ?? 0 }, `notification withheld: ${reason}`);
    this.seen.delete(address);
    this.seen.set(address, { lastAt: now, since: 0 });
    if (this.seen.size > REMEMBERED_ADDRESSES) this.seen.delete(this.seen.keys().next().value!);
  }
}
