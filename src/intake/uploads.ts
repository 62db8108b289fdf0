import { isUpgraded, PlanRules } from '../domain/plans.js';
import { randomBytes } from 'node:crypto';
import { type Readable, Transform } from 'node:stream';
import type { Logger } from 'pino';
import type { Database } from '../db/database.js';
import type { FilePart } from '../db/file-claims.js';
import { FILES_PER_SUBMISSION_MAX, type FileUploadLimits, safeFileName, typeAllowed, uploadCeilings } from '../domain/uploads.js';
import { ProblemError, validationError } from '../errors.js';
import { type FileStore, storageKey } from '../files/file-store.js';
import type { FileLinks } from '../files/signed-links.js';
import { newId } from '../ids.js';
import type { IntakeForm } from '../services/intake-forms.js';
import type { FileParts } from './file-fields.js';
import { FileAllowance } from './file-allowance.js';

/** How long a file written for a submission waits for it to commit before the sweep may remove it. */
export const UNCLAIMED_GRACE_MS = 60 * 60 * 1000;
/** What the parts' own headers and boundaries may add to a multipart body beyond its fields and files. */
const PART_OVERHEAD = 64 * 1024;
/**
 * All a form without uploads reads beyond its 256 KB of text: the parts' boundaries and headers
 * (about 100 bytes each: 2,000 parts fit), and a small file that is only dropped. A larger file to
 * such a form is refused (413) from the declared length, before its body is read.
 */
export const NO_FILES_BODY_CAP = 256 * 1024;
/** Keys looked up or deleted per statement. */
const KEYS_PER_STATEMENT = 500;

/** A file's value in a submission's `data`. */
export interface FileValue {
  name: string;
  type: string;
  size: number;
  url: string;
}

/** A file part of one submission: stored under `storageKey`, or dropped with `droppedReason`. */
export type ReceivedFile = FilePart;

/** What a JSON answer tells the visitor of a file that was not kept. */
export interface DroppedFile {
  field: string;
  name: string;
  reason: string;
}

const UPLOADS_OFF = 'Uploads are off for this form, so the file was not stored.';
const ALLOWANCE_USED = "The workspace's storage allowance for files is used up, so the file was not stored.";

/** What the intake needs to take files: where they go, how they are linked, the database for the unclaimed rows. */
export class UploadIntake {
  constructor(
    private readonly database: Database,
    private readonly store: FileStore,
    private readonly links: FileLinks,
    private readonly log: Logger,
    private readonly plans: PlanRules = PlanRules.fixed('hosting'),
  ) {}

  /** The files of one multipart post to `form`. */
  open(form: IntakeForm): UploadSession {
    return new UploadSession(this.database, this.store, this.links, this.log, form, this.plans.isUpgraded(form.plan));
  }
}

/**
 * The files of one multipart post, taken as their parts arrive: each checked against the form's
 * limits before anything is stored, then streamed to the file store under a key Formgate makes,
 * after an `unclaimed_files` row that lets the sweep remove it should the submission never commit.
 */
export class UploadSession implements FileParts {
  readonly files: ReceivedFile[] = [];
  /** null: uploads are off for the form. */
  readonly limits: FileUploadLimits | null;
  /** The most bytes the body may have beyond its text fields: the form's limit on files, or only the parts' overhead when it takes none. */
  readonly bodyCap: number;
  private readonly marker = `\uE000file-${randomBytes(12).toString('base64url')}-`;
  private readonly keys: string[] = [];
  private readonly writes: Promise<unknown>[] = [];
  private readonly streams = new Set<Transform>();
  /** The part taken last: the next waits for it (see part()). */
  private lastTaken: Promise<string | null> = Promise.resolve(null);
  private readonly parts: Promise<unknown>[] = [];
  private readonly partStreams = new Set<Readable>();
  private storedBytes = 0;
  /** The post's reservation of the workspace's storage allowance, taken as bytes arrive. */
  private readonly allowance: FileAllowance;
  private discarded = false;

  constructor(
    private readonly database: Database,
    private readonly store: FileStore,
    private readonly links: FileLinks,
    private readonly log: Logger,
    readonly form: IntakeForm,
    upgraded = isUpgraded(form.plan),
  ) {
    const ceilings = uploadCeilings(form.plan, upgraded);
    this.limits = form.uploadsEnabled ? limitsOf(form.uploadLimits, ceilings) : null;
    this.bodyCap = this.limits ? this.limits.maxTotalSize + PART_OVERHEAD : NO_FILES_BODY_CAP;
    this.allowance = new FileAllowance(database, form.workspaceId, ceilings.storageBytes, this.limits?.maxTotalSize ?? 0);
  }

  /** The reservation of file bytes the writer converts as it stores the submission; null when no bytes were reserved. */
  get reservation(): string | null {
    return this.allowance.reservation;
  }

  /** The body's declared length: asked of the allowance at the first file, so that a post that fits is reserved whole. */
  expect(bytes: number): void {
    this.allowance.expect(bytes);
  }

  /** Whether `text` stood for a file that was dropped after its part was read (the allowance ran out mid-stream): it is no field. */
  droppedLater(text: string): boolean {
    if (!text.startsWith(this.marker)) return false;
    const file = this.files[Number(text.slice(this.marker.length))];
    return file !== undefined && file.storageKey === null;
  }

  /**
   * One file part, in the order sent. Answers the text that stands for the file among the fields
   * (`valueOf` turns it into the file's object), or null when the part is no file (an empty file
   * input), is dropped, or is a control. Rejects with the problem when a limit is passed.
   */
  part(field: string, stream: Readable, info: { filename?: string; mimeType?: string }): Promise<string | null> {
    if (this.discarded || field.startsWith('_')) return drain(stream);
    this.partStreams.add(stream);
    stream.once('close', () => this.partStreams.delete(stream));
    // NOTE: one part after another, in the body's order: parts whose bytes are already buffered
    // would otherwise race (each waits on the database first), and the breach of the total could be
    // counted, and blamed, on the wrong file. The next part waits only for this one to be read.
    const taken = this.lastTaken.catch(() => null).then(() => this.take(field, stream, info));
    this.lastTaken = taken;
    this.parts.push(taken);
    return taken;
  }

  private async take(field: string, stream: Readable, info: { filename?: string; mimeType?: string }): Promise<string | null> {
    const first = await firstChunk(stream);
    // A file input left empty still sends a part with no filename and no bytes: that is no upload.
    if (first === null && !info.filename) return null;
    const name = safeFileName(info.filename ?? '');
    const type = (info.mimeType ?? '').trim() || 'application/octet-stream';
    if (this.files.length >= FILES_PER_SUBMISSION_MAX) {
      stream.resume();
      throw validationError([`${field}: at most ${FILES_PER_SUBMISSION_MAX} files in one submission`], 'The submission carried too many files.');
    }
    const file: ReceivedFile = { id: newId(), field, position: this.files.length, name, type, size: 0, storageKey: null, droppedReason: null };
    this.files.push(file);
    const limits = this.limits;
    if (!limits) return this.drop(file, stream, first, UPLOADS_OFF);
    if (!typeAllowed(limits.allowedTypes, info.filename ?? '', type)) {
      stream.resume();
      throw validationError(
        [`${field}: ${name} is not a type this form accepts (${limits.allowedTypes.join(', ')})`],
        'The submission carried a file of a type not allowed.',
      );
    }
    if (first !== null && !(await this.allowance.take(first.length))) return this.drop(file, stream, first, ALLOWANCE_USED);
    await this.write(file, stream, first, limits);
    return `${this.marker}${file.position}`;
  }

  /** The file's object for `data` when `text` stands for a stored file of this post; else undefined. */
  valueOf(text: string): FileValue | undefined {
    if (!text.startsWith(this.marker)) return undefined;
    const file = this.files[Number(text.slice(this.marker.length))];
    if (!file?.storageKey) return undefined;
    return { name: file.name, type: file.type, size: file.size, url: this.links.url(file.id) };
  }

  holdsFiles(): boolean {
    return this.files.some((file) => file.storageKey !== null);
  }

  /** The files that were not kept, as a JSON answer tells the visitor. */
  dropped(): DroppedFile[] {
    return this.files.filter((file) => file.droppedReason !== null).map((file) => ({ field: file.field, name: file.name, reason: file.droppedReason! }));
  }

  /** Resolves once every file of the post is whole in the store; rejects when one could not be written. */
  async settled(): Promise<void> {
    // NOTE: parts first: a part's write is only known once the part has been taken
    await Promise.all(this.parts);
    await Promise.all(this.writes);
    await this.allowance.trim();
  }

  /**
   * The post is not stored (refused, honeypot, a failed commit): stops its writes and removes the
   * objects that no submission claimed, with their unclaimed rows. Whatever fails here is left to
   * the sweep. NOTE: only keys still unclaimed are removed: a commit that went through keeps its files.
   */
  async discard(): Promise<void> {
    this.discarded = true;
    // NOTE: the body is no longer read: a part still open would wait for bytes that never come
    for (const stream of [...this.partStreams, ...this.streams]) if (!stream.destroyed) stream.destroy(new Error('the submission was not stored'));
    await Promise.allSettled(this.parts);
    await Promise.allSettled(this.writes);
    try {
      await this.allowance.release();
    } catch (err) {
      this.log.warn({ err, formId: this.form.id }, 'could not give back the file bytes a submission not stored reserved; they expire within the hour');
    }
    try {
      for (let start = 0; start < this.keys.length; start += KEYS_PER_STATEMENT) {
        const keys = this.keys.slice(start, start + KEYS_PER_STATEMENT);
        const unclaimed = await this.database.db.selectFrom('unclaimedFiles').select('storageKey').where('storageKey', 'in', keys).execute();
        const orphans = unclaimed.map((row) => row.storageKey);
        if (orphans.length === 0) continue;
        await this.store.remove(orphans);
        await this.database.db.deleteFrom('unclaimedFiles').where('storageKey', 'in', orphans).execute();
      }
    } catch (err) {
      this.log.warn({ err, formId: this.form.id }, 'could not remove the files of a submission not stored; the sweep removes them');
    }
  }

  private async drop(file: ReceivedFile, stream: Readable, first: Buffer | null, reason: string): Promise<null> {
    file.droppedReason = reason;
    file.size = first?.length ?? 0;
    if (!stream.readableEnded) {
      stream.on('data', (chunk: Buffer) => (file.size += chunk.length));
      await new Promise<void>((resolve, reject) => {
        stream.once('end', resolve);
        stream.once('error', reject);
        stream.resume();
      });
    }
    return null;
  }

  private async write(file: ReceivedFile, stream: Readable, first: Buffer | null, limits: FileUploadLimits): Promise<void> {
    const key = storageKey(this.form.workspaceId, file.id);
    await this.database.db
      .insertInto('unclaimedFiles')
      .values({ storageKey: key, dueAt: Date.now() + UNCLAIMED_GRACE_MS })
      .execute();
    this.keys.push(key);
    if (this.discarded) return drain(stream).then(() => undefined);
    // NOTE: bytes are counted as they arrive, in the body's order, not as the store takes them: a
    // slow write of one file must not let the next file's bytes be counted first (and the breach
    // of the total be blamed on the wrong field).
    let dropping = false;
    // bytes of this file reserved and passed on to the store (the first chunk was reserved before the write began)
    let passed = 0;
    let reservedFirst = first;
    const counter = new Transform({
      transform: (chunk: Buffer, _encoding, done) => {
        if (chunk === reservedFirst) {
          reservedFirst = null;
          passed += chunk.length;
          return done(null, chunk);
        }
        // the allowance is taken before the bytes reach the store: past it, the file is dropped mid-stream
        this.allowance.take(chunk.length).then((taken) => {
          if (taken) {
            passed += chunk.length;
            return done(null, chunk);
          }
          // already refused (a limit passed meanwhile): that refusal stands
          if (counter.destroyed) return done();
          dropping = true;
          this.storedBytes -= file.size;
          done(new Error('the storage allowance for files is used up'));
        }, done);
      },
    });
    const count = (chunk: Buffer) => {
      if (dropping) {
        file.size += chunk.length;
        return;
      }
      if (counter.destroyed) return;
      file.size += chunk.length;
      this.storedBytes += chunk.length;
      if (file.size > limits.maxFileSize) counter.destroy(tooLarge(file.field, `${file.name} is larger than ${megabytes(limits.maxFileSize)}`));
      else if (this.storedBytes > limits.maxTotalSize)
        counter.destroy(tooLarge(file.field, `the files together are larger than ${megabytes(limits.maxTotalSize)}`));
    };
    if (first !== null) count(first);
    stream.on('data', count);
    this.streams.add(counter);
    // busboy pauses the whole body while a file's stream is not read: a failed write must not leave it paused
    counter.once('error', () => {
      stream.unpipe(counter);
      stream.resume();
    });
    const written = this.store
      .write(key, counter, file.name)
      .then(
        () => (dropping ? this.dropWritten(file, key, passed) : undefined),
        (error: unknown) => {
          if (!dropping) throw error;
          return this.dropWritten(file, key, passed);
        },
      )
      .finally(() => this.streams.delete(counter));
    this.writes.push(written);
    if (first !== null && !counter.destroyed) counter.write(first);
    // NOTE: a part may have ended while its first chunk waited: piping an ended stream would never end the copy
    if (stream.readableEnded) counter.end();
    else stream.pipe(counter);
    file.storageKey = key;
    // the parser goes on to the next part only once this one is read; the write may finish later
    written.catch(() => undefined);
    await new Promise<void>((resolve, reject) => {
      if (stream.readableEnded) return resolve();
      stream.once('end', resolve);
      stream.once('error', reject);
      // a file dropped mid-stream is read to its end (its size is kept); any other failure refuses the post
      counter.once('error', (error) => (dropping ? undefined : reject(error)));
    });
  }

  /**
   * The allowance ran out while the file streamed: it is dropped as if it had been full at its
   * start (the rest of the submission is kept), its partial object removed now (else by the sweep)
   * and the bytes it had taken given back.
   */
  private async dropWritten(file: ReceivedFile, key: string, passed: number): Promise<void> {
    file.storageKey = null;
    file.droppedReason = ALLOWANCE_USED;
    this.allowance.untake(passed);
    try {
      await this.store.remove([key]);
      await this.database.db.deleteFrom('unclaimedFiles').where('storageKey', '=', key).execute();
    } catch (err) {
      this.log.warn({ err, formId: this.form.id }, 'could not remove a file dropped mid-stream; the sweep removes it');
    }
  }
}

/** The form's limits (its own, or the defaults: IntakeForm has them applied) within the plan's ceilings. */
function limitsOf(own: FileUploadLimits, ceilings: { maxFileSize: number; maxTotalSize: number }): FileUploadLimits {
  return {
    maxFileSize: Math.min(own.maxFileSize, ceilings.maxFileSize),
    maxTotalSize: Math.min(own.maxTotalSize, ceilings.maxTotalSize),
    allowedTypes: own.allowedTypes,
  };
}

function tooLarge(field: string, why: string): ProblemError {
  return new ProblemError('payload_too_large', `A file is too large: ${why}.`, { errors: [`${field}: ${why}`] });
}

function megabytes(bytes: number): string {
  return bytes % (1024 * 1024) === 0 ? `${bytes / (1024 * 1024)} MB` : `${bytes} bytes`;
}

async function drain(stream: Readable): Promise<null> {
  stream.resume();
  return null;
}

/** The part's first chunk, the stream paused after it; null when the part ends without a byte. */
function firstChunk(stream: Readable): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const settle = (value: Buffer | null) => {
      stream.off('data', onData);
      stream.off('end', onEnd);
      stream.off('error', reject);
      resolve(value);
    };
    const onData = (chunk: Buffer) => {
      stream.pause();
      settle(chunk);
    };
    const onEnd = () => settle(null);
    stream.on('data', onData);
    stream.once('end', onEnd);
    stream.once('error', reject);
  });
}
