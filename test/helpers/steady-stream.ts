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

/** The longest any request may wait for its answer, whatever is down (issue 18: no request hangs). */
export const ANSWER_DEADLINE_MS = 10_000;

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
    const pending = this.send(n).then(
      (answer) => record(answer.status, answer.body, null),
      (error: Error) => record(null, null, error.message),
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
   * Every request was answered within the deadline, with 200 or one of the clean refusals
   * `refusals` allows (status → problem code): never a 5xx, never silence.
   */
  assertAnsweredCleanly(refusals: Record<number, string> = {}): void {
    for (const r of this.results) {
      const where = `a request sent while ${r.phase}`;
      assert.equal(r.error, null, `${where} got no answer: ${r.error}`);
      assert.ok(r.ms < ANSWER_DEADLINE_MS, `${where} took ${r.ms} ms`);
      if (r.status === 200) {
        assert.ok(r.id, `${where} was answered 200 without a submission id`);
        continue;
      }
      assert.ok(r.status !== null && refusals[r.status] === r.code, `${where} was answered ${r.status} ${r.code ?? ''}`);
    }
  }
}
