import assert from 'node:assert/strict';
import fs from 'node:fs';
import { describe, it } from 'node:test';
import { PROBLEMS, problemAnchor } from '../../src/errors.js';

describe('docs/errors.md', () => {
  const doc = fs.readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8');

  it('has an anchor, the status and the summary of every problem code', () => {
    for (const [code, problem] of Object.entries(PROBLEMS)) {
      const row = doc.split('\n').find((line) => line.includes(`<a id="${problemAnchor(code)}"></a>\`${code}\``));
      assert.ok(row, `docs/errors.md lacks a row for ${code}`);
      assert.ok(row.includes(`| ${problem.status} |`), `${code}: status ${problem.status}`);
      assert.ok(row.includes(problem.summary), `${code}: summary out of date`);
    }
  });

  it('documents no code the catalogue does not have', () => {
    const anchors = [...doc.matchAll(/<a id="([a-z-]+)"><\/a>/g)].map((m) => m[1]);
    assert.deepEqual(anchors.sort(), Object.keys(PROBLEMS).map(problemAnchor).sort());
  });
});
