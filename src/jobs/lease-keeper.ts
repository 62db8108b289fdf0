import type { Logger } from 'pino';
import type { ClaimedJob, JobQueue } from './job-queue.js';

export interface LeaseOptions {
  /** How long a claim holds a job unless renewed. */
  leaseMs: number;
  /** How often the leases of jobs under way are renewed. */
  heartbeatMs: number;
  now: () => number;
  log: Pick<Logger, 'warn' | 'error'>;
}

/**
 * The leases of the jobs one worker has under way: each starts with its claim, a heartbeat renews
 * them while any job runs, and one is dropped when its job ends or another worker took it over.
 */
export class LeaseKeeper {
  /** The jobs under way whose leases the heartbeat renews, by id. */
  private readonly underWay = new Map<string, ClaimedJob>();
  /** When the lease of each job under way ends, as this worker last claimed or renewed it. */
  private readonly leaseEnds = new Map<string, number>();
  private heartbeat: NodeJS.Timeout | undefined;

  constructor(
    private readonly queue: JobQueue,
    private readonly options: LeaseOptions,
  ) {}

  /** Keeps the lease of a job just claimed (at `claimedAt`) for as long as it runs. */
  hold(job: ClaimedJob, claimedAt: number): void {
    this.underWay.set(job.id, job);
    this.leaseEnds.set(job.id, claimedAt + this.options.leaseMs);
    this.startHeartbeat();
  }

  /** Renews a job's lease no more (its try ended); the heartbeat stops with the last one. */
  drop(jobId: string): void {
    this.underWay.delete(jobId);
    this.leaseEnds.delete(jobId);
    if (this.underWay.size === 0) this.stop();
  }

  /** When the job's lease ends as far as this worker knows; 0 when it holds it no more. */
  leaseEnd(jobId: string): number {
    return this.leaseEnds.get(jobId) ?? 0;
  }

  /**
   * Extends the leases of the jobs under way (the heartbeat calls it every `heartbeatMs`). A job whose
   * lease was lost meanwhile (the process stalled past it) belongs to whoever claimed it since: its
   * outcome here will not be recorded over theirs.
   */
  async renew(): Promise<void> {
    const jobs = [...this.underWay.values()];
    if (jobs.length === 0) return;
    const { leaseMs, log } = this.options;
    try {
      const now = this.options.now();
      const held = await this.queue.renew(jobs, now, leaseMs);
      for (const id of held) if (this.leaseEnds.has(id)) this.leaseEnds.set(id, now + leaseMs);
      const lost = jobs.filter((job) => !held.has(job.id) && this.underWay.has(job.id));
      if (lost.length === 0) return;
      // renewed no more: the lease is someone else's now (the slot stays taken until the send ends)
      for (const job of lost) {
        this.underWay.delete(job.id);
        this.leaseEnds.delete(job.id);
      }
      log.warn({ jobIds: lost.map((job) => job.id) }, 'lost the lease of deliveries under way; another worker took them over');
    } catch (err) {
      log.error({ err }, 'renewing leases failed; trying again at the next heartbeat');
    }
  }

  /** Stops the heartbeat (the worker stopped, or no job is under way). */
  stop(): void {
    clearInterval(this.heartbeat);
    this.heartbeat = undefined;
  }

  private startHeartbeat(): void {
    if (this.heartbeat) return;
    this.heartbeat = setInterval(() => void this.renew(), this.options.heartbeatMs);
    this.heartbeat.unref();
  }
}
