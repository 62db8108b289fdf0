import type { Logger } from 'pino';
import type { Database } from '../db/database.js';
import { isStorageUnavailable } from '../db/storage-errors.js';
import { StorageFailureLog } from '../domain/storage-failure-log.js';
import { type AttemptOptions, attemptJob } from './attempt.js';
import { WithheldLog } from './withheld-log.js';
import type { Channel } from './channels/channel.js';
import type { LaneLimits } from './claim-query.js';
import { JobQueue, type AttemptResult, type ClaimedJob } from './job-queue.js';
import { DestinationSlots } from './destination-slots.js';
import { LANES, type Lane } from './lanes.js';
import { LeaseKeeper } from './lease-keeper.js';
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from './retry-policy.js';

export interface WorkerOptions {
  /** Jobs in flight at once in this instance, in each lane (email, webhook, Slack: jobs/lanes.ts). */
  concurrency?: number;
  /** Claims again at once when this few jobs of a lane are still in flight (half of `concurrency` by default). */
  refillAt?: number;
  /** Work in front of people (the submit surface's visitors); while it is busy, deliveries yield to it. */
  foreground?: ForegroundLoad;
  /** Jobs in flight at once in each lane while `foreground` is busy (1 by default: 2 a lane cost visitors a fifth of PostgreSQL's submissions/s). */
  busyConcurrency?: number;
  pollIntervalMs?: number;
  /** How long a claim holds a job unless renewed; a crashed worker's jobs run again after it (30 s by default). */
  leaseMs?: number;
  /** How often the leases of jobs under way are renewed (a third of `leaseMs` by default). */
  heartbeatMs?: number;
  /** A send still running after this counts as a transient failure (its lease is renewed meanwhile). */
  jobTimeoutMs?: number;
  retry?: RetryPolicy;
  /** A kind's own retries, in place of `retry` (startDelivery gives webhooks Standard Webhooks' schedule). */
  retryByKind?: Readonly<Record<string, RetryPolicy>>;
  /** The clock (tests move it instead of sleeping). */
  now?: () => number;
  random?: () => number;
  logger?: Pick<Logger, 'info' | 'warn' | 'error'>;
  /** Told how each try ended (the metrics' deliveries counter). */
  observer?: DeliveryObserver;
  /** Asked before each claim: while it answers true nothing is claimed and jobs wait (jobs/delivery-switch.ts). */
  paused?: () => Promise<boolean>;
}

/** What watches the tries: `kind` is the job's channel. */
export interface DeliveryObserver {
  delivered(kind: string, outcome: 'sent' | 'retried' | 'failed'): void;
}

const silent = { info() {}, warn() {}, error() {} };
/** How often a try's outcome is written again while the database cannot write. */
const RECORD_RETRY_MS = 1_000;

/** Whether people are waiting on a process that has no time to spare. */
export interface ForegroundLoad {
  busy(): boolean;
}

/**
 * Claims due jobs from the outbox and delivers them through their channel, in every instance:
 * leases keep two workers off the same job, a heartbeat renews them while a job runs, each lane
 * (channel) has slots of its own, and retries with backoff ride out outages.
 */
export class JobWorker {
  private readonly queue: JobQueue;
  private readonly concurrency: number;
  private readonly refillAt: number;
  private readonly foreground: ForegroundLoad | undefined;
  private readonly busyConcurrency: number;
  private readonly pollIntervalMs: number;
  private readonly leaseMs: number;
  private readonly now: () => number;
  private readonly log: Pick<Logger, 'info' | 'warn' | 'error'>;
  private readonly observer: DeliveryObserver | undefined;
  private readonly paused: () => Promise<boolean>;
  /** How each try is sent and judged (jobs/attempt.ts). */
  private readonly attempt: AttemptOptions;
  private readonly leases: LeaseKeeper;
  private readonly inFlight = new Set<Promise<void>>();
  private readonly claimFailures = new StorageFailureLog('claiming jobs failed: the database cannot write; trying again at each poll');
  private readonly inLane: Record<Lane, number> = Object.fromEntries(LANES.map((lane) => [lane, 0])) as Record<Lane, number>;
  /** The webhooks under way by destination, and how fast each answers: how many more of one a claim may take. */
  private readonly destinations = new DestinationSlots();
  private polling: Promise<void> | null = null;
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  private stopping = false;
  private wakeRequested = false;
  /** The last claim left a destination it cut short at half its limit or below: claim again at once. */
  private cutAndBelowHalf = false;

  constructor(
    database: Database,
    private readonly channels: Record<string, Channel>,
    options: WorkerOptions = {},
  ) {
    this.queue = new JobQueue(database);
    this.concurrency = options.concurrency ?? 16;
    // NOTE: a claim is a write (on SQLite a commit, on PostgreSQL a round trip): claiming again each
    // time one slot freed made claims of a job or two. Freed slots are otherwise filled at each poll.
    this.refillAt = options.refillAt ?? Math.floor(this.concurrency / 2);
    // NOTE: deliveries share the process with the submit surface. When it is saturated, each
    // delivery's CPU (an email's is ~1 ms) is taken from visitors waiting for their answer, who
    // cannot wait, while a delivery can: a few stay in flight, so none stops altogether.
    this.foreground = options.foreground;
    this.busyConcurrency = Math.min(options.busyConcurrency ?? 1, this.concurrency);
    this.pollIntervalMs = options.pollIntervalMs ?? 500;
    // NOTE: short, so that a dead instance's jobs are taken over within about 30 s; the heartbeat
    // keeps a live worker's lease however long its send takes.
    this.leaseMs = options.leaseMs ?? 30_000;
    this.now = options.now ?? Date.now;
    this.log = options.logger ?? silent;
    this.observer = options.observer;
    this.paused = options.paused ?? (async () => false);
    this.attempt = {
      timeoutMs: options.jobTimeoutMs ?? 2 * 60_000,
      retry: options.retry ?? DEFAULT_RETRY_POLICY,
      retryByKind: options.retryByKind,
      now: this.now,
      random: options.random ?? Math.random,
      log: this.log,
      withheld: new WithheldLog(this.log),
    };
    const heartbeatMs = options.heartbeatMs ?? Math.floor(this.leaseMs / 3);
    this.leases = new LeaseKeeper(this.queue, { leaseMs: this.leaseMs, heartbeatMs, now: this.now, log: this.log });
  }

  /** Starts polling in the background. */
  start(): void {
    if (this.running || this.stopping) return;
    this.running = true;
    this.schedule(0);
  }

  /** Polls at once, e.g. right after a transaction that enqueued jobs committed. */
  wake(): void {
    if (!this.running) return;
    if (this.polling) this.wakeRequested = true;
    else this.schedule(0);
  }

  /** Claims one batch (as many as there are free slots) and resolves once all of it has run; returns its size. */
  async runOnce(): Promise<number> {
    const started = await this.claimAndStart(this.freeSlots());
    await Promise.all(started.map(([, run]) => run));
    return started.length;
  }

  /**
   * Stops claiming, waits for jobs in flight up to `deadlineMs`, and gives back jobs claimed but not
   * started. A job still running at the deadline keeps its lease and runs again after it expires.
   */
  async stop(deadlineMs = 10_000): Promise<void> {
    this.running = false;
    this.stopping = true;
    clearTimeout(this.timer);
    await this.polling;
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<void>((resolve) => (timer = setTimeout(resolve, deadlineMs)));
    await Promise.race([Promise.allSettled([...this.inFlight]), deadline]);
    clearTimeout(timer);
    if (this.inFlight.size > 0) this.log.warn({ jobs: this.inFlight.size }, 'stopped with deliveries in flight; they run again when their lease expires');
    this.leases.stop();
  }

  /** Extends the leases of the jobs under way now, as the heartbeat does every `heartbeatMs` (jobs/lease-keeper.ts). */
  renewLeases(): Promise<void> {
    return this.leases.renew();
  }

  private schedule(ms: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.poll(), ms);
    this.timer.unref();
  }

  private async poll(): Promise<void> {
    if (!this.running || this.polling) return;
    const free = this.freeSlots();
    let claimed: ClaimedJob[] = [];
    this.polling = this.claimAndStart(free).then(
      (started) => {
        claimed = started.map(([job]) => job);
      },
      (err: unknown) => {
        if (isStorageUnavailable(err)) this.claimFailures.note(this.log, err);
        else this.log.error({ err }, 'claiming jobs failed; trying again at the next poll');
      },
    );
    await this.polling;
    this.polling = null;
    // A full batch of a lane means more may be due: poll again at once; otherwise wait (or for wake()).
    const again =
      this.wakeRequested ||
      LANES.some((lane) => (free[lane] ?? 0) > 0 && claimed.filter((job) => job.lane === lane).length === free[lane]) ||
      this.cutAndBelowHalf;
    this.wakeRequested = false;
    if (this.running) this.schedule(again ? 0 : this.pollIntervalMs);
  }

  /** Claims up to `limits` jobs of each lane and starts each; the promises settle when each has been recorded. */
  private async claimAndStart(limits: LaneLimits): Promise<[ClaimedJob, Promise<void>][]> {
    this.cutAndBelowHalf = false;
    if (this.stopping || !LANES.some((lane) => (limits[lane] ?? 0) > 0)) return [];
    // paused: jobs stay pending where they are, and the next poll asks again
    if (await this.paused()) return [];
    const claimedAt = this.now();
    const allowance = this.destinations.allowance(claimedAt);
    const jobs = await this.queue.claim(limits, claimedAt, this.leaseMs, allowance);
    const webhooksAsked = (limits.webhook ?? 0) > 0;
    if (webhooksAsked) this.destinations.claimed(allowance, jobs.filter((job) => job.lane === 'webhook').map(slotDestination));
    if (this.stopping) {
      await this.queue.release(jobs, this.now());
      return [];
    }
    const started = jobs.map((job): [ClaimedJob, Promise<void>] => {
      this.leases.hold(job, claimedAt);
      this.inLane[job.lane] += 1;
      if (job.lane === 'webhook') this.destinations.started(job.id, slotDestination(job), claimedAt);
      const run = this.run(job).finally(() => {
        this.inFlight.delete(run);
        this.leases.drop(job.id);
        this.inLane[job.lane] -= 1;
        // a destination held to its limit may have more due: claimed again once half of its slots are free
        const destinationRefill = this.destinations.ended(job.id);
        if (this.running && (this.inLane[job.lane] === this.slots().refillAt || destinationRefill)) this.wake();
      });
      this.inFlight.add(run);
      return [job, run];
    });
    // see DestinationSlots.belowHalfAfterCut: only a claim that ran can ask for the next one
    if (webhooksAsked) this.cutAndBelowHalf = this.destinations.belowHalfAfterCut();
    return started;
  }

  /** How many more jobs of each lane may start now. */
  private freeSlots(): LaneLimits {
    const { total } = this.slots();
    return Object.fromEntries(LANES.map((lane) => [lane, Math.max(0, total - this.inLane[lane])]));
  }

  /** How many jobs of a lane may be in flight now, and at how few still in flight to claim again. */
  private slots(): { total: number; refillAt: number } {
    if (this.foreground?.busy()) return { total: this.busyConcurrency, refillAt: Math.floor(this.busyConcurrency / 2) };
    return { total: this.concurrency, refillAt: this.refillAt };
  }

  /** Sends one job and records the outcome; never rejects. */
  private async run(job: ClaimedJob): Promise<void> {
    const result = await attemptJob(job, this.channels, this.attempt);
    this.observer?.delivered(job.kind, result.outcome === 'ok' ? 'sent' : result.outcome === 'retry' ? 'retried' : 'failed');
    if (job.lane === 'webhook' && this.destinations.answered(slotDestination(job), result.finishedAt - result.startedAt, result.finishedAt)) {
      this.wake(); // it may have more slots now: claimed again at once, not at the next poll
    }
    await this.record(job, result);
  }

  /**
   * Records how a try ended. While the database cannot write (its disk full, its connection lost),
   * it tries again every second as long as the job's lease holds: given up, the job would run
   * again once its lease expired, and its email or webhook go out twice for a passing fault.
   */
  private async record(job: ClaimedJob, result: AttemptResult): Promise<void> {
    for (let tries = 1; ; tries++) {
      try {
        const kept = await this.queue.finish(job, result);
        if (!kept) this.log.warn({ jobId: job.id }, 'lease expired before the job finished; another worker took it over');
        if (tries > 1) this.log.info({ jobId: job.id, tries }, 'recorded a delivery once the database could write again');
        return;
      } catch (err) {
        const leaseHolds = this.now() + 2 * RECORD_RETRY_MS < this.leases.leaseEnd(job.id);
        if (!isStorageUnavailable(err) || !leaseHolds) {
          this.log.error({ err, jobId: job.id }, 'recording a delivery failed; the job runs again when its lease expires');
          return;
        }
        if (tries === 1) this.log.warn({ err, jobId: job.id }, 'recording a delivery failed; trying again while its lease holds');
        await new Promise((resolve) => setTimeout(resolve, RECORD_RETRY_MS));
      }
    }
  }
}

/** A webhook's destination for its slots; one enqueued before destinations were kept shares 'webhook'. */
function slotDestination(job: ClaimedJob): string {
  return job.destination ?? 'webhook';
}
