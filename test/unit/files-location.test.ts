import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { buildConfig, ConfigError } from '../../src/config/config.js';
import { parseFilesLocation } from '../../src/config/files-location.js';

describe('parseFilesLocation (FORMGATE_FILES)', () => {
  it('is the default folder when unset or blank, and any other value a folder resolved from the working folder', () => {
    assert.deepEqual(parseFilesLocation(undefined, 'data/files'), { kind: 'folder', folder: path.resolve('data/files') });
    assert.deepEqual(parseFilesLocation('  ', 'data/files'), { kind: 'folder', folder: path.resolve('data/files') });
    assert.deepEqual(parseFilesLocation('/srv/formgate/files', 'unused'), { kind: 'folder', folder: '/srv/formgate/files' });
    assert.deepEqual(parseFilesLocation('uploads', 'unused'), { kind: 'folder', folder: path.resolve('uploads') });
  });

  it('reads a bucket on AWS with its prefix and region', () => {
    assert.deepEqual(parseFilesLocation('s3://forms-bucket/formgate/files/?region=eu-west-3', 'unused'), {
      kind: 's3',
      bucket: 'forms-bucket',
      prefix: 'formgate/files/',
      endpoint: null,
      region: 'eu-west-3',
      forcePathStyle: false,
    });
    assert.deepEqual(parseFilesLocation('s3://forms-bucket', 'unused'), {
      kind: 's3',
      bucket: 'forms-bucket',
      prefix: '',
      endpoint: null,
      region: null,
      forcePathStyle: false,
    });
  });

  it('reads an S3-compatible server: path-style addresses with an endpoint, unless turned off', () => {
    const minio = parseFilesLocation('s3://uploads/forms?endpoint=http://minio.internal:9000/', 'unused');
    assert.deepEqual(minio, { kind: 's3', bucket: 'uploads', prefix: 'forms/', endpoint: 'http://minio.internal:9000', region: null, forcePathStyle: true });
    const r2 = parseFilesLocation('s3://uploads?endpoint=https://0123abcd.r2.cloudflarestorage.com&region=auto&forcePathStyle=false', 'unused');
    assert.deepEqual(r2, {
      kind: 's3',
      bucket: 'uploads',
      prefix: '',
      endpoint: 'https://0123abcd.r2.cloudflarestorage.com',
      region: 'auto',
      forcePathStyle: false,
    });
    const encoded = parseFilesLocation(`s3://uploads/a?endpoint=${encodeURIComponent('http://127.0.0.1:4568')}`, 'unused');
    assert.equal(encoded.kind === 's3' && encoded.endpoint, 'http://127.0.0.1:4568');
  });

  it('refuses what it cannot use, saying what is wrong', () => {
    const refusals: [string, RegExp][] = [
      ['https://bucket.s3.amazonaws.com/', /must be a folder or an s3:\/\/ address/],
      ['s3://AKIA:secret@bucket/x', /must not hold credentials: set AWS_ACCESS_KEY_ID/],
      ['s3://ab', /names no valid bucket/],
      ['s3://Upper-Case', /names no valid bucket/],
      ['s3://-bucket', /names no valid bucket/],
      ['s3://bucket?endpoint=minio:9000', /endpoint must be an http\(s\) address/],
      ['s3://bucket?endpoint=http://minio:9000/path', /endpoint must be an http\(s\) address without a path/],
      ['s3://bucket?forcePathStyle=yes', /forcePathStyle must be true or false/],
      ['s3://bucket?secret=x', /unknown parameter "secret"/],
      ['s3://bucket?accessKeyId=x', /unknown parameter "accessKeyId"/],
    ];
    for (const [value, message] of refusals) assert.throws(() => parseFilesLocation(value, 'unused'), message, value);
  });
});

describe('buildConfig: FORMGATE_FILES', () => {
  it('keeps files beside the SQLite database by default, in the data folder with PostgreSQL', () => {
    assert.deepEqual(buildConfig({ databaseUrl: 'sqlite:/var/lib/formgate/formgate.db' }).files, { kind: 'folder', folder: '/var/lib/formgate/files' });
    const postgres = buildConfig({ databaseUrl: 'postgres://localhost/formgate', dataDir: '/srv/formgate' });
    assert.deepEqual(postgres.files, { kind: 'folder', folder: '/srv/formgate/files' });
  });

  it('refuses a bad value, naming the variable and never echoing credentials', () => {
    for (const files of ['s3://x', 'ftp://files.example.com/', 's3://bucket?endpoint=nope', 's3://key:hunter2@bucket']) {
      assert.throws(
        () => buildConfig({ files }),
        (error: unknown) => {
          assert.ok(error instanceof ConfigError, String(error));
          assert.match(error.message, /^FORMGATE_FILES /);
          assert.doesNotMatch(error.message, /hunter2/);
          return true;
        },
        files,
      );
    }
  });
});
