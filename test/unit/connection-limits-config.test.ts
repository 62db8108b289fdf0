// Issue 38, item 7: the connection settings, their defaults and their refusals.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { defaultTotalConnections, parseConnectionLimits } from '../../src/config/connections.js';

function limitsFile(openFiles: string): string {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'formgate-limits-')), 'limits');
  fs.writeFileSync(
    file,
    `Limit                     Soft Limit           Hard Limit           Units\nMax open files            ${openFiles}                 4096                 files\n`,
  );
  return file;
}

describe('the connection settings', () => {
  it('derives the total cap from the open-file limit, so a flood meets the cap before EMFILE', () => {
    assert.equal(defaultTotalConnections(limitsFile('1024')), 360);
    assert.equal(defaultTotalConnections(limitsFile('256')), 64, 'never below 64');
    assert.equal(defaultTotalConnections(limitsFile('1048576')), 10_000, 'never above 10,000');
    assert.equal(defaultTotalConnections(limitsFile('unlimited')), 10_000);
    assert.equal(defaultTotalConnections('/nonexistent/limits'), 360, 'the common limit where it cannot be read');
  });

  it('takes the defaults, and what is set', () => {
    const defaults = parseConnectionLimits({});
    assert.equal(defaults.perAddress, 100);
    assert.equal(defaults.firstRequestTimeoutMs, 10_000);
    assert.deepEqual(parseConnectionLimits({ maxConnections: '500', maxConnectionsPerAddress: '0', firstRequestTimeout: '500ms' }), {
      total: 500,
      perAddress: 0,
      firstRequestTimeoutMs: 500,
    });
  });

  it('refuses what it cannot read, naming the variable', () => {
    assert.throws(() => parseConnectionLimits({ maxConnections: '0' }), /FORMGATE_MAX_CONNECTIONS must be a whole number of at least 1, got "0"/);
    assert.throws(() => parseConnectionLimits({ maxConnectionsPerAddress: 'ten' }), /FORMGATE_MAX_CONNECTIONS_PER_ADDRESS must be a whole number/);
    assert.throws(() => parseConnectionLimits({ firstRequestTimeout: '10' }), /FORMGATE_FIRST_REQUEST_TIMEOUT must be a duration from 100ms to 120s/);
    assert.throws(() => parseConnectionLimits({ firstRequestTimeout: '5m' }), /FORMGATE_FIRST_REQUEST_TIMEOUT/);
  });
});
