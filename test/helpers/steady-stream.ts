import assert from 'node:assert/strict';
import type { Answer } from './app.js';

/** One request of a stream: how it was answered (or why not) and how long that took. */
export interface StreamResult {
  phase: string;
  status: number | null;
  ms: number;
  /** The submission id of a 200 JSON answer. */
  id: string | null;
  /** The problem code of a refusal. */
  code: string | null;
  error: string | null;
}

/**
 * When a request still unanswered counts as hung (issue 18: no request hangs). A hang detector, not
 * a speed limit: the server's own deadlines (Redis's command timeout, SMTP's and webhooks' timeouts)
 * answer in a few seconds at most; how fast it answers depends on the machine and is a figure of the
 * report (`slowestMs`), never a pass mark.
 */
export const HANG_MS = 60_000;

/**
 * A steady, bounded stream of requests (a submission every `everyMs`, at most `max` in all),
 * each timed and recorded under the phase the test is in when it is sent. The test switches
 * phases as it injects and lifts faults; `stop` waits for the answers still on their way.
 */
export class SteadyStream {
  readonly results: StreamResult[] = [];
  phase = 'start';
  private sent = 0;
  private timer: NodeJS.Timeout | undefined;
  private readonly inFlight = new Set<Promise<void>>();

  constructor(
    private readonly send: (n: number) => Promise<Answer>,
    private readonly options: { everyMs: number; max: number },
  ) {}

  get requestsSent(): number {
    return this.sent;
  }

  start(): void {
    this.timer = setInterval(() => this.sendOne(), this.options.everyMs);
  }

  private sendOne(): void {
    if (this.sent >= this.options.max) return;
    const n = this.sent++;
    const phase = this.phase;
    const started = performance.now();
    const record = (status: number | null, body: any, error: string | null): void => {
      this.results.push({
        phase,
        status,
        ms: Math.round(performance.now() - started),
        id: status === 200 && typeof body?.id === 'string' ? body.id : null,
        code: typeof body?.code === 'string' ? body.code : null,
        error,
      });
    };
    let hang: NodeJS.Timeout | undefined;
    const hung = new Promise<never>((_resolve, reject) => {
      hang = setTimeout(() => reject(new Error(`no answer after ${HANG_MS / 1000} s: hung`)), HANG_MS);
    });
    const pending = Promise.race([this.send(n), hung])
      .finally(() => clearTimeout(hang))
      .then(
        (answer) => record(answer.status, answer.body, null),
        (error: Error) => record(null, null, describeFailure(error)),
      );
    const tracked: Promise<void> = pending.finally(() => this.inFlight.delete(tracked));
    this.inFlight.add(tracked);
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await Promise.all([...this.inFlight]);
  }

  /** The ids of the acknowledged (200) submissions. */
  acknowledged(): string[] {
    return this.results.flatMap((r) => (r.id ? [r.id] : []));
  }

  /** How many answers had each status (`none` for a request that got no answer). */
  statusCounts(): Record<string, number> {
    const counts: Record<string, number> = {};
    for (const r of this.results) counts[String(r.status ?? 'none')] = (counts[String(r.status ?? 'none')] ?? 0) + 1;
    return counts;
  }

  slowestMs(): number {
    return Math.max(0, ...this.results.map((r) => r.ms));
  }

  /**
   * Every request was answered (none hung: HANG_MS), with 200 or one of the clean refusals
   * `refusals` allows (status → problem code): never a 5xx, never silence.
   */
  assertAnsweredCleanly(refusals: Record<number, string> = {}): void {
    for (const r of this.results) {
      const where = `a request sent while ${r.phase}`;
      assert.equal(r.error, null, `${where} got no answer: ${r.error}`);
      if (r.status === 200) {
        assert.ok(r.id, `${where} was answered 200 without a submission id`);
        continue;
      }
      assert.ok(r.status !== null && refusals[r.status] === r.code, `${where} was answered ${r.status} ${r.code ?? ''}`);
    }
  }
}

/** fetch's "fetch failed" with what lies under it (a refused or closed connection, a timeout), for a failure that names itself. */
function describeFailure(error: Error): string {
  const cause = error.cause as { code?: string; message?: string } | undefined;
  return cause ? `${error.message} (${[cause.code, cause.message].filter(Boolean).join(': ')})` : error.message;
}
