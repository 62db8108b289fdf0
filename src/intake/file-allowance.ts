import type { Database } from '../db/database.js';
import { releaseFileReservation, reserveFileBytes, returnFileBytes } from '../db/file-reservations.js';
import { newId } from '../ids.js';

/** Bytes reserved at a time once a post's own length does not fit: a 20 MB file costs 20 reservations. */
export const RESERVATION_STEP = 1024 * 1024;

/**
 * One post's share of its workspace's storage allowance for files (issue 38, item 4): bytes are
 * reserved before they reach the store, so concurrent posts cannot together pass the allowance.
 * The first reservation asks for the post's declared length (its files cannot be longer), so that
 * of posts racing for the last room the ones that fit win whole; past that, a step at a time, and
 * at the end exactly what a chunk needs. Reservations are made one after another.
 */
export class FileAllowance {
  /** The reservation's row, once bytes are reserved. */
  readonly id = newId();
  private reserved = 0;
  private used = 0;
  private declared: number | null = null;
  private made = false;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly database: Database,
    private readonly workspaceId: string,
    /** The bytes the workspace may store in all. */
    private readonly allowance: number,
    /** The most bytes the post's files may have together. */
    private readonly postCap: number,
  ) {}

  /** The reservation's id when bytes were reserved (the writer converts it), else null. */
  get reservation(): string | null {
    return this.made ? this.id : null;
  }

  /** The body's declared length: the most its files can take, asked for first. */
  expect(bytes: number): void {
    if (Number.isSafeInteger(bytes) && bytes > 0) this.declared = bytes;
  }

  /** Whether `bytes` more may be stored: reserved first when what is held does not cover them. */
  take(bytes: number): Promise<boolean> {
    const taken = this.queue.then(() => this.cover(bytes));
    this.queue = taken.catch(() => undefined);
    return taken;
  }

  /** Bytes taken that will not be stored after all (a file dropped mid-stream). */
  untake(bytes: number): void {
    this.used -= bytes;
  }

  /** Once every file is written: what was reserved and not used goes back, so other posts may use it before this one commits. */
  trim(): Promise<void> {
    const done = this.queue.then(async () => {
      const unused = this.reserved - this.used;
      if (!this.made || unused <= 0) return;
      await returnFileBytes(this.database, { id: this.id, workspaceId: this.workspaceId }, unused);
      this.reserved -= unused;
    });
    this.queue = done.catch(() => undefined);
    return done;
  }

  /** The post is not stored: all of it goes back. */
  async release(): Promise<void> {
    await this.queue;
    if (this.made) await releaseFileReservation(this.database, this.id);
    this.made = false;
  }

  private async cover(bytes: number): Promise<boolean> {
    const need = this.used + bytes - this.reserved;
    if (need <= 0) {
      this.used += bytes;
      return true;
    }
    const asks = [Math.min(RESERVATION_STEP, this.postCap - this.reserved), need];
    if (!this.made && this.declared !== null) asks.unshift(Math.min(this.declared, this.postCap));
    for (const ask of new Set(asks.map((bytes) => Math.max(bytes, need)))) {
      if (await reserveFileBytes(this.database, { id: this.id, workspaceId: this.workspaceId }, ask, this.allowance)) {
        this.made = true;
        this.reserved += ask;
        this.used += bytes;
        return true;
      }
    }
    return false;
  }
}
