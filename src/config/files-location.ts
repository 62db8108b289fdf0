import path from 'node:path';

/** Where uploaded files go (FORMGATE_FILES): a folder on this machine, or an S3-compatible bucket. */
export type FilesConfig =
  | { kind: 'folder'; folder: string }
  | {
      kind: 's3';
      bucket: string;
      /** Keys start with it: `forms/` for `s3://bucket/forms`; empty for the bucket's root. */
      prefix: string;
      /** An S3-compatible server's address (MinIO, R2, Garage…); null: AWS's own for the region. */
      endpoint: string | null;
      /** null: the AWS SDK's own (AWS_REGION, or us-east-1 with an endpoint). */
      region: string | null;
      /** Path-style addresses (`endpoint/bucket/key`): what most S3-compatible servers need; on with an endpoint unless `forcePathStyle=false`. */
      forcePathStyle: boolean;
    };

// https://docs.aws.amazon.com/AmazonS3/latest/userguide/bucketnamingrules.html
const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

/**
 * FORMGATE_FILES: unset is `defaultFolder` (`files/` beside the SQLite database, or in the data
 * folder); `s3://bucket/prefix?endpoint=…&region=…&forcePathStyle=…` a bucket; anything else a
 * folder (relative to the working folder). Credentials never go here: the AWS SDK reads its usual
 * variables (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_PROFILE…). Throws a message naming
 * what is wrong; the caller names the variable.
 */
export function parseFilesLocation(value: string | undefined, defaultFolder: string): FilesConfig {
  if (value === undefined || value.trim() === '') return { kind: 'folder', folder: path.resolve(defaultFolder) };
  if (!value.startsWith('s3://')) {
    if (/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) throw new Error(`must be a folder or an s3:// address, got "${value}"`);
    return { kind: 'folder', folder: path.resolve(value) };
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error(`is not a valid s3:// address: "${value}"`);
  }
  if (url.username || url.password) throw new Error('must not hold credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY instead');
  const bucket = url.hostname;
  if (!BUCKET.test(bucket)) throw new Error(`names no valid bucket ("${bucket}": 3 to 63 lower-case letters, digits, dots and hyphens)`);
  const known = new Set(['endpoint', 'region', 'forcePathStyle']);
  for (const name of url.searchParams.keys())
    if (!known.has(name)) throw new Error(`has an unknown parameter "${name}" (known: endpoint, region, forcePathStyle)`);
  const endpoint = url.searchParams.get('endpoint');
  if (endpoint !== null && !/^https?:\/\/[^/]+\/?$/.test(endpoint)) throw new Error(`endpoint must be an http(s) address without a path, got "${endpoint}"`);
  const style = url.searchParams.get('forcePathStyle');
  if (style !== null && style !== 'true' && style !== 'false') throw new Error(`forcePathStyle must be true or false, got "${style}"`);
  const prefix = decodeURIComponent(url.pathname).replace(/^\/+|\/+$/g, '');
  return {
    kind: 's3',
    bucket,
    prefix: prefix === '' ? '' : `${prefix}/`,
    endpoint: endpoint === null ? null : endpoint.replace(/\/$/, ''),
    region: url.searchParams.get('region'),
    forcePathStyle: style === null ? endpoint !== null : style === 'true',
  };
}
