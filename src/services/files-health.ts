import type { FileStore } from '../files/file-store.js';

/** How often at most the file store is probed (a small object written and deleted). */
export const FILES_CHECK_INTERVAL_MS = 30_000;
/** How long a probe may take before the store counts as unreachable (S3's own probe gives up sooner). */
export const FILES_CHECK_TIMEOUT_MS = 10_000;

export interface FilesCheck {
  status: 'ok' | 'degraded';
  reason?: 'files_unreachable';
  kind: FileStore['kind'];
  /** The store's `describe()`: where files go, never a credential. */
  where: string;
  /** When the last probe ended, and why it failed when it did. */
  checkedAt: string;
  error?: string;
  [detail: string]: unknown;
}

/**
 * Whether uploaded files can be stored, for `/healthz` and `/metrics`. A store that cannot be reached
 * is `degraded`, never `failing`: a bucket (or a shared folder) is the same for every instance, so a
 * load balancer dropping this one would not help, and submissions without files still go through.
 * The store is probed at most once every 30 s; checks in between answer what the last probe found,
 * and start the next one in the background when it is due.
 */
export class FilesHealth {
  private last: FilesCheck | null = null;
  private probing: Promise<FilesCheck> | null = null;
  private readonly intervalMs: number;
  private readonly timeoutMs: number;
  private readonly now: () => number;

  constructor(
    private readonly store: FileStore,
    options: { intervalMs?: number; timeoutMs?: number; now?: () => number } = {},
  ) {
    this.intervalMs = options.intervalMs ?? FILES_CHECK_INTERVAL_MS;
    this.timeoutMs = options.timeoutMs ?? FILES_CHECK_TIMEOUT_MS;
    this.now = options.now ?? Date.now;
  }

  /** The files check: waits for the first probe only; after that, the last answer. */
  async check(): Promise<FilesCheck> {
    const due = !this.last || this.now() - Date.parse(this.last.checkedAt) >= this.intervalMs;
    if (due) this.probing ??= this.probe().finally(() => (this.probing = null));
    return this.last ?? (await this.probing!);
  }

  /** Whether the last probe reached the store (probing first when none has yet): the `/metrics` gauge. */
  async reachable(): Promise<boolean> {
    return (await this.check()).status === 'ok';
  }

  private async probe(): Promise<FilesCheck> {
    const base = { kind: this.store.kind, where: this.store.describe() };
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${this.timeoutMs / 1000} s`)), this.timeoutMs);
      timer.unref();
    });
    try {
      await Promise.race([this.store.check(), timeout]);
      this.last = { status: 'ok', ...base, checkedAt: new Date(this.now()).toISOString() };
    } catch (error) {
      const message = error instanceof Error ? `${error.name === 'Error' ? '' : `${error.name}: `}${error.message}` : String(error);
      this.last = { status: 'degraded', reason: 'files_unreachable', ...base, checkedAt: new Date(this.now()).toISOString(), error: message.slice(0, 300) };
    } finally {
      clearTimeout(timer);
    }
    return this.last;
  }
}
