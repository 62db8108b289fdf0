import type { Logger } from 'pino';
import { DeliveryError } from '../domain/delivery-error.js';
import type { Channel, DeliveryReceipt } from './channels/channel.js';
import type { AttemptResult, ClaimedJob } from './job-queue.js';
import { retryDelay, type RetryPolicy, triesAllowed } from './retry-policy.js';
import type { WithheldLog } from './withheld-log.js';

export interface AttemptOptions {
  /** A send still running after this counts as a transient failure. */
  timeoutMs: number;
  /** The retries of every kind of job that `retryByKind` does not name. */
  retry: RetryPolicy;
  /** A kind's own retries (webhooks: Standard Webhooks' schedule over days). */
  retryByKind?: Readonly<Record<string, RetryPolicy>>;
  now: () => number;
  random: () => number;
  log: Pick<Logger, 'warn' | 'error'>;
  /** Notifications withheld from unconfirmed addresses: logged once an hour per address, not per job. */
  withheld?: WithheldLog;
}

/**
 * Sends one claimed job through its channel and decides how the try ended (sent, retried later, or
 * given up), logging a failure; never rejects, so the worker always has an outcome to record.
 */
export async function attemptJob(job: ClaimedJob, channels: Record<string, Channel>, options: AttemptOptions): Promise<AttemptResult> {
  const startedAt = options.now();
  try {
    const channel = channels[job.kind];
    if (!channel) throw new DeliveryError(`no channel delivers jobs of kind "${job.kind}"`, { permanent: true });
    const receipt = await withTimeout(channel.send(job), options.timeoutMs);
    return { outcome: 'ok', startedAt, finishedAt: options.now(), ...answerOf(receipt) };
  } catch (err) {
    const result = failure(job, err, startedAt, options);
    const about = {
      jobId: job.id,
      kind: job.kind,
      formId: formIdOf(job),
      submissionId: job.submissionId,
      attempt: job.attempt,
      statusCode: result.statusCode,
    };
    const withheldFrom = err instanceof DeliveryError ? err.withheldFrom : undefined;
    // withheld by the workspace's own rule until the address confirms: the delivery log shows each
    if (withheldFrom !== undefined && options.withheld) options.withheld.note(withheldFrom, result.error ?? '', about);
    // given up: nobody will get this one unless someone retries it, so it is an error an operator must see
    else if (result.outcome === 'failed')
      options.log.error({ ...about, outcome: result.outcome, reason: result.error }, `delivery failed for good: ${result.error}`);
    else options.log.warn({ ...about, outcome: result.outcome, error: result.error }, 'delivery failed');
    return result;
  }
}

/** The retries of a job's kind. */
export function retryPolicyOf(kind: string, options: Pick<AttemptOptions, 'retry' | 'retryByKind'>): RetryPolicy {
  return options.retryByKind?.[kind] ?? options.retry;
}

function failure(job: ClaimedJob, err: unknown, startedAt: number, options: AttemptOptions): AttemptResult {
  const permanent = err instanceof DeliveryError && err.permanent;
  const statusCode = err instanceof DeliveryError ? err.statusCode : undefined;
  const target = err instanceof DeliveryError ? err.target : undefined;
  const error = err instanceof Error ? err.message : String(err);
  const finishedAt = options.now();
  const policy = retryPolicyOf(job.kind, options);
  if (permanent || job.attempt >= triesAllowed(policy)) return { outcome: 'failed', startedAt, finishedAt, statusCode, error, target };
  const backoff = retryDelay(policy, job.attempt, options.random);
  // a receiver's Retry-After is honoured, up to the policy's longest wait; never sooner than the schedule
  const asked = err instanceof DeliveryError && err.retryAfterMs !== undefined ? Math.min(err.retryAfterMs, policy.capMs) : 0;
  const retryAt = finishedAt + Math.max(backoff, asked);
  // what the receiver asked for holds even when its destination answers again meanwhile (job-queue.ts, bringForward)
  const notBefore = asked > 0 ? finishedAt + asked : undefined;
  return { outcome: 'retry', startedAt, finishedAt, statusCode, error, retryAt, notBefore, target };
}

/** What a try that went through records of its receipt. */
// biome-ignore lint/suspicious/noConfusingVoidType: what Channel.send resolves to
function answerOf(receipt: DeliveryReceipt | void): Pick<AttemptResult, 'statusCode' | 'response' | 'writtenTo' | 'target'> {
  if (!receipt) return {};
  return { statusCode: receipt.statusCode ?? undefined, response: receipt.response, writtenTo: receipt.writtenTo, target: receipt.target };
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    timer.unref();
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** The form a job delivers for (every submission's job names it; an account's email has none). */
function formIdOf(job: ClaimedJob): string | undefined {
  const formId = (job.payload as { formId?: unknown } | null)?.formId;
  return typeof formId === 'string' ? formId : undefined;
}
