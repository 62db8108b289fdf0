import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { KeptRows } from '../../src/db/kept-rows.js';

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

/** A table of one row per key, with a change count, and how often each was read. */
function source(keptAtMostMs?: number, now?: () => number) {
  const rows = new Map<string, { name: string }>([['a', { name: 'first' }]]);
  const reads = { count: 0, lookups: 0 };
  let changes = 0;
  const kept = new KeptRows<{ name: string }>(
    async () => {
      reads.count++;
      return changes;
    },
    async (key) => {
      reads.lookups++;
      return rows.get(key) && { ...rows.get(key)! };
    },
    keptAtMostMs,
    now,
  );
  return { kept, reads, rows, change: () => changes++ };
}

describe('KeptRows', () => {
  it('reads a row again once it has been kept its longest, even while the count stays put', async () => {
    // on a clock of the test's: kept for exactly 30 ms, whatever the machine
    let clock = 1_000;
    const { kept, reads, rows } = source(30, () => clock);
    await kept.get('a');
    rows.set('a', { name: 'changed unheard' });
    await nextTurn();
    clock += 30;
    assert.deepEqual(await kept.get('a'), { name: 'first' }, 'still kept at its longest');
    await nextTurn();
    clock += 1;
    assert.deepEqual(await kept.get('a'), { name: 'changed unheard' }, 'read again past its longest');
    assert.equal(reads.lookups, 2);
  });

  it('keeps a row across turns while the count stays put, reading the count once per turn', async () => {
    const { kept, reads } = source();
    assert.deepEqual(await Promise.all([kept.get('a'), kept.get('a'), kept.get('a')]), [{ name: 'first' }, { name: 'first' }, { name: 'first' }]);
    await nextTurn();
    assert.deepEqual(await kept.get('a'), { name: 'first' });
    assert.equal(reads.lookups, 1, 'one lookup, shared by the first three and kept for the fourth');
    assert.equal(reads.count, 2, 'the count once in each turn');
  });

  it('drops what it kept once the count has moved, from the next turn on', async () => {
    const { kept, reads, rows, change } = source();
    await kept.get('a');
    rows.set('a', { name: 'renamed' });
    change();
    assert.deepEqual(await kept.get('a'), { name: 'first' }, 'within the turn the count was read in, the kept row stands');
    await nextTurn();
    assert.deepEqual(await kept.get('a'), { name: 'renamed' });
    assert.equal(reads.lookups, 2);
  });

  it('keeps no answer for a key that finds nothing', async () => {
    const { kept, reads, rows } = source();
    assert.equal(await kept.get('b'), undefined);
    rows.set('b', { name: 'created' });
    await nextTurn();
    assert.deepEqual(await kept.get('b'), { name: 'created' }, 'a row made later is found without any count moving');
    assert.equal(reads.lookups, 2);
  });

  it('never shares a lookup begun under an older count with a caller of a newer one', async () => {
    let changes = 0;
    const answers: ((row: { name: string }) => void)[] = [];
    const kept = new KeptRows<{ name: string }>(
      async () => changes,
      () => new Promise((resolve) => answers.push(resolve)),
    );
    const before = kept.get('a');
    await nextTurn();
    changes++;
    const after = kept.get('a');
    await nextTurn();
    assert.equal(answers.length, 2, 'the newer caller looks up again');
    answers[0]!({ name: 'read before the change' });
    answers[1]!({ name: 'read after it' });
    assert.deepEqual(await before, { name: 'read before the change' });
    assert.deepEqual(await after, { name: 'read after it' });
    await nextTurn();
    assert.deepEqual(await kept.get('a'), { name: 'read after it' }, 'what is kept is the newer read');
  });
});
