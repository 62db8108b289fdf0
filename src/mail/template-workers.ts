import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { type RenderAs, TEMPLATE_LIMITS } from './template-engine.js';

/** The bounds of the jobs of a pool: each render's time and output, and the watchdog that ends a job outright. */
export interface TemplateLimits {
  timeMs: number;
  outputChars: number;
  steps?: number;
  /** A job still running after this long (a compile, which cannot be interrupted) has its thread ended. */
  watchdogMs: number;
}

/** What a worker is asked: compile code as a write does (`check`, rendered with no data), or render stored code with data. */
export type TemplateJob = { limits: TemplateLimits } & (
  | { kind: 'check'; code: string }
  /** `keep: false`: code seen once (a draft being previewed) is not kept among the compiled templates. */
  /** `files`, `submissionUrl`: what a notification template reads beside `data` (NotificationExtras). */
  /** `as: 'text'`: text that is not HTML (a subject line), values printed unescaped; `json`, `urlencoded`: a webhook body. */
  | ({ kind: 'render'; code: string; data: Record<string, unknown>; keep?: boolean; as?: RenderAs } & NotificationExtras)
);

/** What a notification template reads beside `data`; the autoresponder and subjects get neither (docs/templates.md). */
export interface NotificationExtras {
  /** `{{#each files}}`: the submission's stored files. */
  files?: readonly TemplateFile[];
  /** `{{submissionUrl}}`: the submission's page in the dashboard (a preview without one: the form's inbox). */
  submissionUrl?: string;
}

/** A file as a notification template sees it in `{{#each files}}`. */
export interface TemplateFile {
  field: string;
  name: string;
  type: string;
  /** Bytes. */
  size: number;
  /** The size as people read it (`47.1 KB`). */
  sizeText: string;
  /** Where it is downloaded: the submission's page in the dashboard, behind a login. */
  url: string;
}

/** The result of a job: the email's HTML and text, or why there is none. */
export type TemplateOutcome =
  | { ok: true; html: string; text: string }
  | { ok: false; problem: 'invalid'; errors: string[] }
  | { ok: false; problem: 'too_slow' | 'too_large'; message: string };

/** Starts a watchdog that calls `expire` after `ms`; returns what stops it. A test passes one it fires itself. */
export type StartWatchdog = (ms: number, expire: () => void) => () => void;

/**
 * The watchdog is a safety net, not a limit anyone should meet: a template within its counted
 * limits (template-size.ts) compiles in well under a second on an idle machine, and this leaves
 * room for a machine many times slower or busier.
 */
export const DEFAULT_TEMPLATE_LIMITS: TemplateLimits = { ...TEMPLATE_LIMITS, watchdogMs: 15_000 };

// NOTE: tests run src/ through tsx (the worker inherits `--import tsx`); the bundle has it beside dist/main.js (scripts/build.mjs).
const WORKER_FILE = new URL(import.meta.url.endsWith('.ts') ? './template-worker.ts' : './template-worker.js', import.meta.url);
// A worker's heap: a compile or render that would need more is ended, not the process.
const WORKER_HEAP_MB = 128;

interface Waiting {
  job: TemplateJob;
  settle: (outcome: TemplateOutcome) => void;
  fail: (error: Error) => void;
}

interface Slot {
  worker: Worker | null;
  /** The worker has loaded Handlebars: a job's watchdog starts when the job does, not while a thread starts. */
  ready: boolean;
  running: (Waiting & { id: number; stopWatchdog: () => void }) | null;
}

/**
 * Compiles and renders templates on a few worker threads, so that a large template or a render at
 * its limits never holds the event loop that answers requests. Each job has a watchdog: a thread
 * still busy past `watchdogMs` is ended and replaced. Threads start on first use and keep the
 * process alive only while they have work.
 */
export class TemplateWorkers {
  private readonly slots: Slot[];
  private readonly queue: Waiting[] = [];
  private readonly limits: TemplateLimits;
  private readonly startWatchdog: StartWatchdog;
  private nextId = 1;

  constructor(options: { size?: number; limits?: Partial<TemplateLimits>; startWatchdog?: StartWatchdog } = {}) {
    const size = options.size ?? Math.max(1, Math.min(2, availableParallelism() - 1));
    this.slots = Array.from({ length: size }, () => ({ worker: null, ready: false, running: null }));
    this.limits = { ...DEFAULT_TEMPLATE_LIMITS, ...options.limits };
    this.startWatchdog =
      options.startWatchdog ??
      ((ms, expire) => {
        const timer = setTimeout(expire, ms);
        return () => clearTimeout(timer);
      });
  }

  /** Compiles code as a write checks it, and renders it with no data (what the autoresponder's content check reads). */
  check(code: string): Promise<TemplateOutcome> {
    return this.submit({ kind: 'check', code, limits: this.limits });
  }

  /** Renders stored code with a submission's fields (compiled code is kept by each thread). */
  render(code: string, data: Record<string, unknown>, extras: NotificationExtras = {}): Promise<TemplateOutcome> {
    return this.submit({ kind: 'render', code, data, ...extras, limits: this.limits });
  }

  /**
   * Renders a one-line text setting written with placeholders (a subject) with a submission's fields:
   * the same checks and bounds as a template, but values are not HTML-escaped (`text` is the output).
   */
  renderText(code: string, data: Record<string, unknown>): Promise<TemplateOutcome> {
    return this.submit({ kind: 'render', code, data, as: 'text', limits: this.limits });
  }

  /**
   * Renders a webhook body template (docs/webhooks.md, Body templates) with a submission's fields:
   * the same checks and bounds as a template, values escaped for JSON or a form body, and the result
   * checked as that (`text` is the body to send). `keep: false`: a draft, not kept compiled.
   */
  renderBody(code: string, data: Record<string, unknown>, as: 'json' | 'urlencoded', keep = true): Promise<TemplateOutcome> {
    return this.submit({ kind: 'render', code, data, as, keep, limits: this.limits });
  }

  /**
   * Renders code that is being written (the dashboard's live preview): as `render`, but the compiled
   * draft is not kept, so a person typing does not push the stored templates out of each thread's cache.
   */
  renderDraft(code: string, data: Record<string, unknown>, extras: NotificationExtras = {}): Promise<TemplateOutcome> {
    return this.submit({ kind: 'render', code, data, ...extras, keep: false, limits: this.limits });
  }

  /** Ends the threads; jobs still waiting fail. */
  async close(): Promise<void> {
    for (const waiting of this.queue.splice(0)) waiting.fail(new Error('the template workers were closed'));
    await Promise.all(this.slots.map((slot) => this.endWorker(slot, new Error('the template workers were closed'))));
  }

  private submit(job: TemplateJob): Promise<TemplateOutcome> {
    return new Promise((settle, fail) => {
      this.queue.push({ job, settle, fail });
      this.dispatch();
    });
  }

  private dispatch(): void {
    let starting = this.slots.filter((slot) => slot.worker && !slot.ready).length;
    for (const slot of this.slots) {
      if (slot.running || this.queue.length === 0) continue;
      if (!slot.worker) {
        // a thread more only for a job that no thread already starting will take
        if (starting >= this.queue.length) continue;
        slot.worker = this.startWorker(slot);
        starting++;
      }
      if (!slot.ready) continue;
      const worker = slot.worker;
      const waiting = this.queue.shift()!;
      const id = this.nextId++;
      slot.running = { ...waiting, id, stopWatchdog: this.startWatchdog(this.limits.watchdogMs, () => this.expire(slot, id)) };
      worker.postMessage({ id, ...waiting.job });
    }
    this.holdProcessWhileBusy();
  }

  // NOTE: a thread keeps the process alive only while it has work: idle, it must not stop a CLI command or a test run from ending
  private holdProcessWhileBusy(): void {
    for (const slot of this.slots) {
      if (slot.running || this.queue.length > 0) slot.worker?.ref();
      else slot.worker?.unref();
    }
  }

  private startWorker(slot: Slot): Worker {
    const worker = new Worker(WORKER_FILE, { resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB } });
    slot.ready = false;
    worker.on('message', (answer: (TemplateOutcome & { id: number }) | { ready: true }) => {
      if ('ready' in answer) {
        slot.ready = true;
        this.dispatch();
        return;
      }
      const running = slot.running;
      if (!running || running.id !== answer.id) return;
      const { id: _id, ...outcome } = answer;
      this.finish(
        slot,
        (outcome as { problem?: string }).problem === 'failed'
          ? () => running.fail(new Error((outcome as { message: string }).message))
          : () => running.settle(outcome),
      );
    });
    worker.on('error', (error: Error & { code?: string }) => {
      const running = slot.running;
      if (slot.worker === worker) slot.worker = null;
      if (!running) {
        // failed as it started: the jobs waiting fail too, rather than start thread after failing thread
        if (!slot.ready) for (const waiting of this.queue.splice(0)) waiting.fail(error);
        else this.dispatch();
        return;
      }
      const outOfMemory = error.code === 'ERR_WORKER_OUT_OF_MEMORY';
      this.finish(
        slot,
        outOfMemory
          ? () =>
              running.settle({
                ok: false,
                problem: 'too_large',
                message: `compiling or rendering needed more than the ${WORKER_HEAP_MB} MB a template may use`,
              })
          : () => running.fail(error),
      );
    });
    worker.on('exit', () => {
      if (slot.worker !== worker) return;
      slot.worker = null;
      const running = slot.running;
      if (running) this.finish(slot, () => running.fail(new Error('the template worker stopped')));
      else this.dispatch();
    });
    return worker;
  }

  /** The watchdog of job `id` fired: its thread is ended and the job answered as too slow. */
  private expire(slot: Slot, id: number): void {
    const running = slot.running;
    if (!running || running.id !== id) return;
    const worker = slot.worker;
    slot.worker = null;
    void worker?.terminate();
    const message = `compiling and rendering took longer than ${this.limits.watchdogMs} ms`;
    this.finish(slot, () => running.settle({ ok: false, problem: 'too_slow', message }));
  }

  private finish(slot: Slot, answer: () => void): void {
    slot.running?.stopWatchdog();
    slot.running = null;
    answer();
    this.dispatch();
  }

  private async endWorker(slot: Slot, reason: Error): Promise<void> {
    const worker = slot.worker;
    const running = slot.running;
    slot.worker = null;
    if (running) this.finish(slot, () => running.fail(reason));
    await worker?.terminate();
  }
}

let shared: TemplateWorkers | null = null;

/** The process's template workers (the API's previews and writes, and the delivery channels share them). */
export function sharedTemplateWorkers(): TemplateWorkers {
  shared ??= new TemplateWorkers();
  return shared;
}
