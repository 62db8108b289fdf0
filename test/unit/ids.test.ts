import assert from 'node:assert/strict';
import { test } from 'node:test';
import { newId } from '../../src/ids.js';

test('ids are 20 lowercase base32 characters, distinct across refills of the random pool', () => {
  // 1,000 ids draw the 4 KiB pool five times over
  const ids = Array.from({ length: 1000 }, newId);
  for (const id of ids) assert.match(id, /^[a-z2-7]{20}$/);
  assert.equal(new Set(ids).size, ids.length);
  // every symbol turns up: the bytes are spread over the whole alphabet
  assert.equal(new Set(ids.join('')).size, 32);
});
