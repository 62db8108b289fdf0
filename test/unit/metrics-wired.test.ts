// Issue 39, item 15: three counters of the file store were defined, documented and exposed at 0, and
// never moved, because nothing called their helpers. Every helper of Metrics must have a caller.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { Metrics } from '../../src/metrics/metrics.js';

function sourceFiles(dir = 'src'): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return /\.tsx?$/.test(entry.name) ? [full] : [];
  });
}

describe('metrics', () => {
  it('has a caller outside src/metrics for every method that updates or watches a metric', () => {
    // durationChild: a private helper of answered()
    const methods = Object.getOwnPropertyNames(Metrics.prototype).filter((name) => name !== 'constructor' && name !== 'durationChild');
    assert.ok(methods.includes('fileStored') && methods.includes('answered'), methods.join(', '));
    const source = sourceFiles()
      .filter((file) => !file.startsWith(path.join('src', 'metrics')))
      .map((file) => fs.readFileSync(file, 'utf8'))
      .join('\n');
    const uncalled = methods.filter((name) => !new RegExp(`\\.${name}\\(`).test(source));
    assert.deepEqual(uncalled, [], 'these metrics never move: wire them or remove them');
  });
});
