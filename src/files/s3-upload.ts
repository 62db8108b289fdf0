import type * as ClientS3 from '@aws-sdk/client-s3';

/** S3's smallest part but the last: a write holds this much of an upload in memory, in one buffer. */
export const S3_PART_SIZE = 5 * 1024 * 1024;

interface ObjectParams {
  Bucket: string;
  Key: string;
  ContentType: string;
  ContentDisposition: string;
}

/**
 * Streams `body` into one object and resolves with its bytes: a single PutObject when it fits in one
 * part, else a multipart upload, one part at a time through one reused buffer, so an upload of any
 * size holds 5 MB and the body is read on only once the part before is stored. When the body or S3
 * fails, the multipart upload is aborted (its parts deleted) and nothing appears under the key.
 *
 * NOTE: lib-storage's Upload was the first choice, but it keeps the last part, the parts being
 * gathered and their concatenation alive at once (10 to 17 MB an upload, measured): too much for
 * "a few MB" per upload.
 */
export async function uploadStream(client: ClientS3.S3Client, sdk: typeof ClientS3, params: ObjectParams, body: AsyncIterable<unknown>): Promise<number> {
  const { Bucket, Key } = params;
  const part = Buffer.allocUnsafe(S3_PART_SIZE);
  let filled = 0;
  let size = 0;
  let uploadId: string | undefined;
  const parts: { PartNumber: number; ETag: string }[] = [];
  const sendPart = async () => {
    uploadId ??= (await client.send(new sdk.CreateMultipartUploadCommand(params))).UploadId;
    if (!uploadId) throw new Error(`s3://${Bucket}/${Key}: the server gave no upload id`);
    const PartNumber = parts.length + 1;
    const { ETag } = await client.send(
      new sdk.UploadPartCommand({ Bucket, Key, UploadId: uploadId, PartNumber, Body: part.subarray(0, filled), ContentLength: filled }),
    );
    if (!ETag) throw new Error(`s3://${Bucket}/${Key}: the server gave no ETag for part ${PartNumber}`);
    parts.push({ PartNumber, ETag });
    filled = 0;
  };
  try {
    for await (const received of body) {
      const chunk = Buffer.isBuffer(received) ? received : Buffer.from(received as string);
      for (let offset = 0; offset < chunk.length; ) {
        const copied = chunk.copy(part, filled, offset);
        filled += copied;
        offset += copied;
        size += copied;
        if (filled === part.length) await sendPart();
      }
    }
    if (uploadId === undefined) {
      await client.send(new sdk.PutObjectCommand({ ...params, Body: part.subarray(0, filled), ContentLength: filled }));
      return size;
    }
    if (filled > 0) await sendPart();
    await client.send(new sdk.CompleteMultipartUploadCommand({ Bucket, Key, UploadId: uploadId, MultipartUpload: { Parts: parts } }));
    return size;
  } catch (error) {
    // best effort: a part set left behind is invisible, and a lifecycle rule clears it (docs/operations.md)
    if (uploadId !== undefined) await client.send(new sdk.AbortMultipartUploadCommand({ Bucket, Key, UploadId: uploadId })).catch(() => {});
    throw error;
  }
}
