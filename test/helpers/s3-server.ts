import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { once } from 'node:events';

const require = createRequire(import.meta.url);

/** The keys s3rver accepts: what AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY hold in tests. */
export const S3_SERVER_CREDENTIALS = { AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER' } as const;

export interface S3Server {
  /** `http://127.0.0.1:<port>` */
  endpoint: string;
  bucket: string;
  /** What FORMGATE_FILES holds for this server: `s3://<bucket>/<prefix>?endpoint=…`. */
  location(prefix?: string): string;
  /** The variables a `formgate` child process needs to reach the bucket (the credentials above). */
  env: Record<string, string>;
  /** Stops the server (the bucket's folder stays until `remove`); a stopped server refuses connections. */
  stop(): Promise<void>;
  /** Stops the server and deletes its folder. */
  remove(): Promise<void>;
}

// In a process of its own (with OpenSSL's legacy ciphers: s3rver's continuation tokens use DES): its memory stays out of a test's measurements, and stopping it is a kill.
// NOTE: s3rver removes emptied folders after a deletion and fails (500) when another deletion removed
// one first or it never existed (a missing key); S3 has no folders, so such a failure is ignored here.
const SERVER_SCRIPT = `
const S3rver = require(process.argv[1]);
const Store = require(require('path').join(require('path').dirname(process.argv[1]), 'stores', 'filesystem.js'));
const deleteObject = Store.prototype.deleteObject;
Store.prototype.deleteObject = function (...args) {
  return deleteObject.apply(this, args).catch((error) => { if (error.code !== 'ENOENT') throw error; });
};
const server = new S3rver({ address: '127.0.0.1', port: 0, silent: process.env.S3RVER_LOUD !== '1', directory: process.argv[2], configureBuckets: [{ name: process.argv[3] }] });
server.run().then((address) => process.stdout.write(JSON.stringify({ port: address.port }) + '\\n'), (error) => { console.error(error); process.exit(1); });
process.stdin.on('end', () => process.exit(0));
process.stdin.resume();
`;

/**
 * A real S3-speaking server (s3rver) on 127.0.0.1 with one bucket, in a temporary folder. Clients
 * need S3_SERVER_CREDENTIALS in their environment (the AWS SDK's default chain reads them).
 * S3RVER_LOUD=1 prints the requests it answers.
 */
export async function startS3Server(bucket = 'formgate-test'): Promise<S3Server> {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'formgate-s3-'));
  const child: ChildProcess = spawn(process.execPath, ['--openssl-legacy-provider', '-e', SERVER_SCRIPT, require.resolve('s3rver'), folder, bucket], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const line = output.split('\n')[0];
      if (output.includes('\n') && line) resolve((JSON.parse(line) as { port: number }).port);
    });
    child.once('exit', (code) => reject(new Error(`s3rver exited (${code}) before listening`)));
  });
  const endpoint = `http://127.0.0.1:${port}`;
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    const exited = once(child, 'exit');
    child.kill('SIGKILL');
    await exited;
  };
  return {
    endpoint,
    bucket,
    location: (prefix = '') => `s3://${bucket}/${prefix}?endpoint=${encodeURIComponent(endpoint)}`,
    env: { ...S3_SERVER_CREDENTIALS, AWS_REGION: 'us-east-1' },
    stop,
    async remove() {
      await stop();
      fs.rmSync(folder, { recursive: true, force: true });
    },
  };
}
