import http from 'node:http';
import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';

const MB = 1024 * 1024;

/** Files adding up to a plan's total exactly, none over its size per file. */
export function uploadSizesAtLimit(maxFileSize: number, maxTotalSize: number): number[] {
  const sizes: number[] = [];
  for (let left = maxTotalSize; left > 0; left -= maxFileSize) sizes.push(Math.min(left, maxFileSize));
  return sizes;
}

/**
 * Posts a multipart submission with a text field and `.pdf` files of `sizes` bytes, streamed
 * (nothing of that size is held in memory), with its Content-Length as a browser sends it.
 */
export function postFiles(url: string, host: string, sizes: number[]): Promise<{ status: number; body: any }> {
  const boundary = `----formgate${randomBytes(8).toString('hex')}`;
  const parts: (Buffer | number)[] = [Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="message"\r\n\r\nat the plan's limit\r\n`)];
  sizes.forEach((size, n) => {
    parts.push(
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file${n}"; filename="part${n}.pdf"\r\nContent-Type: application/pdf\r\n\r\n`),
      size,
      Buffer.from('\r\n'),
    );
  });
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  const length = parts.reduce<number>((sum, part) => sum + (typeof part === 'number' ? part : part.length), 0);
  const block = Buffer.alloc(MB, 'x');
  function* body() {
    for (const part of parts) {
      if (typeof part !== 'number') yield part;
      else for (let left = part; left > 0; left -= block.length) yield left >= block.length ? block : block.subarray(0, left);
    }
  }
  return new Promise((resolve, reject) => {
    const outgoing = http.request(
      url,
      { method: 'POST', headers: { host, accept: 'application/json', 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': length } },
      (response) => {
        let text = '';
        response.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
        response.once('end', () => {
          let parsed: unknown = text;
          try {
            parsed = JSON.parse(text);
          } catch {}
          resolve({ status: response.statusCode!, body: parsed });
        });
      },
    );
    outgoing.once('error', reject);
    Readable.from(body()).pipe(outgoing);
  });
}
