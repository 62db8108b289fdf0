import assert from 'node:assert/strict';
import { test } from 'node:test';
import { idAt, newId } from '../../src/ids.js';

test('ids are 20 lowercase base32 characters, distinct across refills of the random pool', () => {
  // 1,000 ids draw the random pool five times over
  const ids = Array.from({ length: 1000 }, () => newId());
  for (const id of ids) assert.match(id, /^[a-z2-7]{20}$/);
  assert.equal(new Set(ids).size, ids.length);
  // every symbol turns up in the random part: its bytes are spread over the whole alphabet
  assert.equal(new Set(ids.map((id) => id.slice(9)).join('')).size, 32);
});

test('ids sort as their times do, across every digit of the time', () => {
  const times = [0, 1, 31, 32, 1_000, 1_795_000_000_000, 1_795_000_000_031, 1_795_000_000_032, 2 ** 45 - 1];
  const ids = times.map((time) => idAt(time));
  assert.deepEqual([...ids].sort(), ids);
  // the same millisecond shares the time digits; the random part tells ids apart
  assert.equal(idAt(5_000).slice(0, 9), idAt(5_000).slice(0, 9));
  assert.notEqual(idAt(5_000), idAt(5_000));
});
