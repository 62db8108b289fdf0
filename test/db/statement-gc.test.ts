import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { it } from 'node:test';
import { promisify } from 'node:util';
import { PROJECT_ROOT } from '../helpers/cli.js';

// better-sqlite3 before 13 aborted the process (`Assertion failed: (env) != nullptr`) on Node
// 24.19+ whenever a statement was garbage-collected: `formgate serve` died at once. The issue's
// reproduction, in a child process so that an abort shows as a signal instead of ending the suite.
const REPRODUCTION = `
const Database = require('better-sqlite3');
const db = new Database(':memory:');
for (let i = 0; i < 20000; i++) db.prepare('select ' + i).get();
globalThis.gc();
setImmediate(() => { globalThis.gc(); db.close(); console.log('survived on ' + process.version); });
`;

it('survives statements garbage-collected by the thousand (better-sqlite3 13 on Node 24.19+)', async () => {
  const { stdout } = await promisify(execFile)(process.execPath, ['--expose-gc', '-e', REPRODUCTION], { cwd: PROJECT_ROOT, timeout: 60_000 });
  assert.equal(stdout.trim(), `survived on ${process.version}`);
});
