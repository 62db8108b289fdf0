import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { describe, it } from 'node:test';
import { PROJECT_ROOT } from '../helpers/cli.js';

describe('guardProcess (formgate serve)', () => {
  it('logs an uncaught error event and an unhandled rejection, with the error, and keeps serving', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'test/helpers/guarded-child.ts'], { cwd: PROJECT_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
    try {
      const logs: Record<string, any>[] = [];
      let port = 0;
      const lines = createInterface({ input: child.stdout });
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no two guard lines within 15 s; stderr: ${stderr}; logs: ${JSON.stringify(logs)}`)), 15_000);
        const check = () => {
          if (port && logs.length >= 2) {
            clearTimeout(timer);
            resolve();
          }
        };
        lines.on('line', (line) => {
          if (line.startsWith('listening ')) port = Number(line.slice('listening '.length));
          else logs.push(JSON.parse(line) as Record<string, any>);
          check();
        });
        void exited.then((code) => reject(new Error(`the child exited (${code}) instead of keeping on; stderr: ${stderr}`)));
      });
      const exception = logs.find((l) => l.origin === 'uncaughtException');
      assert.ok(exception, JSON.stringify(logs));
      assert.equal(exception.level, 50);
      assert.match(exception.msg, /uncaught exception: logged, and Formgate keeps serving/);
      assert.equal(exception.err.code, 'ECONNREFUSED');
      assert.match(exception.err.stack, /ECONNREFUSED/);
      const rejection = logs.find((l) => /unhandled promise rejection/.test(l.msg));
      assert.ok(rejection, JSON.stringify(logs));
      assert.equal(rejection.err.code, 'ENOENT');

      const answer = await fetch(`http://127.0.0.1:${port}/`);
      assert.equal(await answer.text(), 'still serving');
      child.kill('SIGTERM');
      assert.equal(await exited, 0, stderr);
    } finally {
      child.kill('SIGKILL');
    }
  });
});
