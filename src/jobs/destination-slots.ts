import type { DestinationAllowance } from './claim-query.js';
import { DESTINATION_LIMIT, FAST_DESTINATION_LIMIT } from './lanes.js';

/** A try that takes this long (or longer) marks its receiver as slow. */
export const SLOW_TRY_MS = 1_000;
/** A receiver not heard from for this long is again one the worker knows nothing of. */
const FORGET_AFTER_MS = 60_000;

/**
 * A worker's webhooks in flight by destination, and which destinations answer fast: what decides
 * how many more of each destination a claim may take (jobs/lanes.ts). A receiver that answered its
 * last try within SLOW_TRY_MS, and has no try under way for longer, may have FAST_DESTINATION_LIMIT
 * in flight; any other (one that hangs, one not heard from lately) DESTINATION_LIMIT.
 */
export class DestinationSlots {
  private readonly underWay = new Map<string, { destination: string; startedAt: number }>();
  /** When each destination last answered within SLOW_TRY_MS, unless it was found slow since. */
  private readonly answeredFast = new Map<string, number>();
  /** Destinations whose last claim took all their allowance: more of theirs may be due. */
  private readonly cutShort = new Set<string>();

  started(jobId: string, destination: string, at: number): void {
    this.underWay.set(jobId, { destination, startedAt: at });
  }

  /**
   * A try to `destination` got its answer (or failed) after `ms`. Says whether the destination has
   * just become one that answers fast: it may take more slots now, its others may be claimed.
   */
  answered(destination: string, ms: number, at: number): boolean {
    const wasFast = this.answeredFast.has(destination);
    if (ms >= SLOW_TRY_MS) this.answeredFast.delete(destination);
    else this.answeredFast.set(destination, at);
    return !wasFast && ms < SLOW_TRY_MS;
  }

  /** A claim given `allowance` took webhooks to `destinations` (one entry per webhook): notes which destinations it cut short. */
  claimed(allowance: DestinationAllowance, destinations: readonly string[]): void {
    const taken = new Map<string, number>();
    for (const destination of destinations) taken.set(destination, (taken.get(destination) ?? 0) + 1);
    for (const destination of new Set([...Object.keys(allowance), ...taken.keys()])) {
      const given = allowance[destination] ?? DESTINATION_LIMIT;
      if (given === 0) continue; // it could take none: says nothing of what is due
      if ((taken.get(destination) ?? 0) >= given) this.cutShort.add(destination);
      else this.cutShort.delete(destination);
    }
  }

  /** The job's slot is free again; says whether its destination's others may be claimed now (it fell to half its limit). */
  ended(jobId: string): boolean {
    const job = this.underWay.get(jobId);
    if (!job) return false;
    this.underWay.delete(jobId);
    return this.inFlightTo(job.destination) === Math.floor(this.limitOf(job.destination) / 2);
  }

  /**
   * Whether a destination whose last claim was cut short by its allowance has at most half its limit
   * in flight: its webhooks then never fall to half again, so `ended` never says so. NOTE: the
   * webhooks in flight often all end during a claim begun at half (a round trip on PostgreSQL), and
   * the worker sat idle until the next poll, half a second, several times per 10,000 webhooks.
   */
  belowHalfAfterCut(): boolean {
    for (const destination of this.cutShort) {
      if (this.inFlightTo(destination) <= Math.floor(this.limitOf(destination) / 2)) return true;
    }
    return false;
  }

  /** How many more webhooks of each destination a claim may take now (a destination left out: DESTINATION_LIMIT). */
  allowance(now: number): DestinationAllowance {
    const inFlight = new Map<string, number>();
    for (const { destination, startedAt } of this.underWay.values()) {
      inFlight.set(destination, (inFlight.get(destination) ?? 0) + 1);
      if (now - startedAt >= SLOW_TRY_MS) this.answeredFast.delete(destination); // no answer yet: slow now
    }
    const allowance: Record<string, number> = {};
    for (const [destination, at] of this.answeredFast) {
      if (now - at > FORGET_AFTER_MS) this.answeredFast.delete(destination);
      else allowance[destination] = FAST_DESTINATION_LIMIT;
    }
    for (const [destination, count] of inFlight) allowance[destination] = Math.max(0, this.limitOf(destination) - count);
    return allowance;
  }

  private inFlightTo(destination: string): number {
    let count = 0;
    for (const job of this.underWay.values()) if (job.destination === destination) count += 1;
    return count;
  }

  private limitOf(destination: string): number {
    return this.answeredFast.has(destination) ? FAST_DESTINATION_LIMIT : DESTINATION_LIMIT;
  }
}
