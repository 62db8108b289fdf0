import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import { stripVTControlCharacters } from 'node:util';
import { createLogger } from '../../src/cli/logger.js';
import { PROJECT_ROOT } from '../helpers/cli.js';
import type { LogFormat } from '../../src/config/checks.js';

/** A destination that is, or is not, a terminal, and what was written to it. */
function destination(isTTY: boolean): { stream: Writable; text: () => string } {
  let text = '';
  const stream = Object.assign(
    new Writable({
      write(chunk, _encoding, done) {
        text += String(chunk);
        done();
      },
    }),
    { isTTY },
  );
  return { stream, text: () => text };
}

function logRequest(format: LogFormat, isTTY: boolean): string {
  const out = destination(isTTY);
  createLogger({ logLevel: 'info', logFormat: format }, out.stream).info(
    { reqId: 'r1', method: 'GET', path: '/x', ip: '::1', status: 404, ms: 0.4 },
    'request',
  );
  return out.text();
}

describe('the log format', () => {
  it('is JSON when the output is not a terminal and nothing is asked', () => {
    assert.deepEqual(JSON.parse(logRequest('auto', false)).path, '/x');
  });

  it('is readable on a terminal, JSON when asked even there', () => {
    const plain = stripVTControlCharacters(logRequest('auto', true));
    assert.match(plain, /^\d\d:\d\d:\d\d INFO {2}GET \/x 404 0\.4 ms ::1\n$/);
    assert.equal(JSON.parse(logRequest('json', true)).status, 404);
  });

  it('is readable, without colours, off a terminal when asked', () => {
    assert.match(logRequest('pretty', false), /^\d\d:\d\d:\d\d INFO {2}GET \/x 404 0\.4 ms ::1\n$/);
  });
});

describe('the server log on stdout, at exit', () => {
  it('keeps every line, in order, when the process exits while the thread pool is busy', () => {
    // One pool thread, held by a long key derivation: a write queued to the pool would wait behind
    // it, and process.exit's flush would write the later line first and leave the earlier one unwritten.
    const script = `
      import crypto from 'node:crypto';
      import { createLogger } from './src/cli/logger.ts';
      const logger = createLogger({ logLevel: 'info', logFormat: 'json' });
      crypto.pbkdf2('x', 'salt', 3_000_000, 32, 'sha512', () => undefined);
      logger.info('drain window over');
      logger.info('stopped');
      process.exit(0);
    `;
    const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '--eval', script], {
      cwd: PROJECT_ROOT,
      env: { ...process.env, UV_THREADPOOL_SIZE: '1' },
      encoding: 'utf8',
    });
    const messages = out
      .trim()
      .split('\n')
      .map((line) => (JSON.parse(line) as { msg: string }).msg);
    assert.deepEqual(messages, ['drain window over', 'stopped']);
  });
});
