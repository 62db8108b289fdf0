import { createHash, randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import type { Readable } from 'node:stream';
import type * as ClientS3 from '@aws-sdk/client-s3';
import type { S3Client } from '@aws-sdk/client-s3';
import type { FilesConfig } from '../config/files-location.js';
import { downloadDisposition } from '../domain/uploads.js';
import { checkedKey, type FileStore, type StoredFile } from './file-store.js';
import { uploadStream } from './s3-upload.js';

type S3Location = Extract<FilesConfig, { kind: 's3' }>;

/** DeleteObjects takes at most this many keys. */
export const S3_DELETE_BATCH = 1000;
/** The type of every uploaded object, whatever the visitor declared. */
export const STORED_TYPE = 'application/octet-stream';
/** How long `check()` waits for its probe before the store counts as unreachable. */
export const S3_CHECK_TIMEOUT_MS = 5_000;

/**
 * Files in an S3-compatible bucket (AWS, MinIO, Cloudflare R2, Garage…), shared by every instance.
 * Credentials come from the AWS SDK's default chain (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY,
 * AWS_PROFILE, an instance role…), never from FORMGATE_FILES, and are never logged.
 */
export class S3FileStore implements FileStore {
  readonly kind = 's3';
  private readonly client: S3Client;
  private readonly sdk: typeof ClientS3;

  constructor(private readonly location: S3Location) {
    // NOTE: loaded only for a bucket (as pg is for PostgreSQL): the SDK takes a quarter of a second to load
    const load = createRequire(import.meta.url);
    this.sdk = load('@aws-sdk/client-s3') as typeof ClientS3;
    this.client = new this.sdk.S3Client({
      ...(location.endpoint ? { endpoint: location.endpoint } : {}),
      // NOTE: the SDK wants a region even for a server that has none; us-east-1 is what S3-compatible servers expect then
      region: location.region ?? (location.endpoint ? (process.env.AWS_REGION ?? 'us-east-1') : undefined),
      forcePathStyle: location.forcePathStyle,
      // S3-compatible servers reject or ignore the newer CRC checksums the SDK would add to every request
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      requestHandler: { connectionTimeout: S3_CHECK_TIMEOUT_MS, socketTimeout: 60_000 },
    });
    // NOTE: DeleteObjects must carry Content-MD5 for AWS's older rule and for MinIO, R2 and others; the SDK now sends a CRC instead
    this.client.middlewareStack.add(
      (next, context) => async (args) => {
        const request = args.request as { headers?: Record<string, string>; body?: unknown };
        if (context.commandName === 'DeleteObjectsCommand' && request.headers && typeof request.body === 'string')
          request.headers['content-md5'] ??= createHash('md5').update(request.body).digest('base64');
        return next(args);
      },
      { step: 'build', priority: 'low', name: 'formgateDeleteObjectsMd5' },
    );
  }

  describe(): string {
    const where = this.location.endpoint ?? `AWS${this.location.region ? ` ${this.location.region}` : ''}`;
    return `s3://${this.location.bucket}/${this.location.prefix} at ${where}`;
  }

  /**
   * NOTE: never the visitor's declared type (issue 38, item 18): a bucket served directly (a public
   * bucket, a CDN in front of it) would render a `text/html` upload on its domain. The object is
   * plain bytes offered as a download under its safe name; the declared type stays in the
   * submission's data (`type`), and downloads through Formgate serve it as before.
   */
  async write(key: string, body: Readable, name: string): Promise<number> {
    const params = { Bucket: this.location.bucket, Key: this.objectKey(key), ContentType: STORED_TYPE, ContentDisposition: downloadDisposition(name) };
    try {
      return await uploadStream(this.client, this.sdk, params, body);
    } catch (error) {
      body.destroy();
      throw error;
    }
  }

  async read(key: string): Promise<StoredFile | null> {
    try {
      const object = await this.client.send(new this.sdk.GetObjectCommand({ Bucket: this.location.bucket, Key: this.objectKey(key) }));
      return { body: object.Body as Readable, size: object.ContentLength ?? 0 };
    } catch (error) {
      if (isMissing(error)) return null;
      throw error;
    }
  }

  async remove(keys: readonly string[]): Promise<void> {
    const objectKeys = keys.map((key) => this.objectKey(key));
    for (let start = 0; start < objectKeys.length; start += S3_DELETE_BATCH) {
      const batch = objectKeys.slice(start, start + S3_DELETE_BATCH);
      const answer = await this.client.send(
        new this.sdk.DeleteObjectsCommand({ Bucket: this.location.bucket, Delete: { Objects: batch.map((Key) => ({ Key })), Quiet: true } }),
      );
      const failed = (answer.Errors ?? []).filter((error) => error.Code !== 'NoSuchKey');
      if (failed.length > 0)
        throw new Error(
          `could not delete ${failed.length} of ${batch.length} objects from s3://${this.location.bucket}: ${failed[0]?.Code} ${failed[0]?.Message ?? ''}`.trim(),
        );
    }
  }

  /** Writes and deletes a small object under the prefix: proves the credentials may do what uploads need. */
  async check(): Promise<void> {
    const Key = `${this.location.prefix}.formgate-probe-${randomBytes(6).toString('hex')}`;
    const abortSignal = AbortSignal.timeout(S3_CHECK_TIMEOUT_MS);
    try {
      await this.client.send(new this.sdk.PutObjectCommand({ Bucket: this.location.bucket, Key, Body: 'ok', ContentType: 'text/plain' }), { abortSignal });
      await this.client.send(new this.sdk.DeleteObjectCommand({ Bucket: this.location.bucket, Key }), { abortSignal });
    } catch (error) {
      if (abortSignal.aborted) throw new Error(`no answer from ${this.describe()} within ${S3_CHECK_TIMEOUT_MS / 1000} s`);
      throw error;
    }
  }

  private objectKey(key: string): string {
    return this.location.prefix + checkedKey(key);
  }
}

function isMissing(error: unknown): boolean {
  const failure = error as { name?: string; $metadata?: { httpStatusCode?: number } };
  return failure.name === 'NoSuchKey' || (failure.$metadata?.httpStatusCode === 404 && failure.name !== 'NoSuchBucket');
}
