import { randomBytes } from 'node:crypto';
import type { Answer } from './app.js';
import { until } from './eventually.js';
import { JSON_ACCEPT, request } from './submit.js';

/** A submission the server acknowledged (200 with its id): it must be stored, once, and delivered. */
export interface Acknowledged {
  ref: string;
  id: string;
}

/** An answer that breaks the promise: neither an acknowledgement nor an honest 503 (a 500, a hang, a reset). */
export interface BadAnswer {
  ref: string;
  status: number;
  body: unknown;
}

export interface StreamOptions {
  submitUrl: string;
  formId: string;
  /** Requests in flight at once. */
  concurrency?: number;
  /** Pause of each sender between its requests: keeps the stream steady and the deliveries few. */
  gapMs?: number;
  /** The most requests the stream sends, whatever happens. */
  maxRequests?: number;
  /** The stream stops by itself after this long. */
  maxMs?: number;
}

/**
 * A steady, bounded stream of JSON submissions, each with a unique `ref` field, that sorts every
 * answer: acknowledged (200 with an id), refused honestly (503 `storage_unavailable` with
 * Retry-After, a problem document), or bad (anything else). The reliability suites then check that
 * every acknowledged ref is stored once and delivered.
 */
export class SubmissionStream {
  readonly acknowledged: Acknowledged[] = [];
  readonly refused: string[] = [];
  readonly bad: BadAnswer[] = [];
  sent = 0;
  private stopped = false;
  private senders: Promise<void>[] = [];
  private readonly prefix = randomBytes(4).toString('hex');

  constructor(private readonly options: StreamOptions) {}

  start(): void {
    const deadline = Date.now() + (this.options.maxMs ?? 60_000);
    for (let i = 0; i < (this.options.concurrency ?? 2); i++) this.senders.push(this.send(deadline));
  }

  /** Stops sending and resolves once every request in flight has been answered. */
  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all(this.senders);
  }

  /** Resolves once `count` more answers of the kind have come, or rejects at the deadline. */
  async waitFor(kind: 'acknowledged' | 'refused', count: number, deadlineMs = 20_000): Promise<void> {
    const target = this[kind].length + count;
    await until(
      `${count} ${kind} submissions (sent ${this.sent}, ${JSON.stringify(this.counts())})`,
      () => {
        if (this[kind].length < target && this.stopped) throw new Error(`the stream stopped before ${count} ${kind} submissions came`);
        return this[kind].length >= target;
      },
      deadlineMs,
    );
  }

  counts(): { sent: number; acknowledged: number; refused: number; bad: number } {
    return { sent: this.sent, acknowledged: this.acknowledged.length, refused: this.refused.length, bad: this.bad.length };
  }

  private async send(deadline: number): Promise<void> {
    const max = this.options.maxRequests ?? 3_000;
    while (!this.stopped && this.sent < max && Date.now() < deadline) {
      const ref = `${this.prefix}-${++this.sent}`;
      const answer = await request(
        'POST',
        `${this.options.submitUrl}/${this.options.formId}`,
        new URLSearchParams({ ref, message: `stream submission ${ref}`, email: `visitor-${ref}@example.com` }).toString(),
        { accept: JSON_ACCEPT, 'content-type': 'application/x-www-form-urlencoded' },
      ).catch((error: Error): Answer => ({ status: 0, headers: new Headers(), body: error.message }));
      this.sort(ref, answer);
      await new Promise((resolve) => setTimeout(resolve, this.options.gapMs ?? 25));
    }
  }

  private sort(ref: string, answer: Answer): void {
    const body = answer.body as Record<string, unknown> | null;
    if (answer.status === 200 && typeof body?.id === 'string') {
      this.acknowledged.push({ ref, id: body.id });
      return;
    }
    const honest =
      answer.status === 503 &&
      body?.code === 'storage_unavailable' &&
      (answer.headers.get('content-type') ?? '').startsWith('application/problem+json') &&
      Number(answer.headers.get('retry-after')) > 0;
    if (honest) this.refused.push(ref);
    else this.bad.push({ ref, status: answer.status, body: answer.body });
  }
}
