import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { GroupCommit } from '../../src/db/group-commit.js';

const turn = () => new Promise((resolve) => setImmediate(resolve));

/** A promise and the functions that settle it. */
function deferred(): { promise: Promise<void>; resolve(): void; reject(error: Error): void } {
  let resolve!: () => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

describe('GroupCommit', () => {
  it('writes what arrives in one turn as one batch, and answers each item in order', async () => {
    const batches: number[][] = [];
    const group = new GroupCommit<number, number>(async (items) => {
      batches.push(items);
      return items.map((item) => item * 10);
    });
    assert.deepEqual(await Promise.all([1, 2, 3].map((item) => group.add(item))), [10, 20, 30]);
    assert.deepEqual(batches, [[1, 2, 3]]);
  });

  it('answers a batch only once it is durable, and writes the next one meanwhile once it is as large', async () => {
    const flushes = [deferred(), deferred(), deferred()];
    let durableAsked = 0;
    const batches: number[][] = [];
    const group = new GroupCommit<number, number>(
      async (items) => {
        batches.push(items);
        return items;
      },
      () => flushes[durableAsked++]!.promise,
    );
    const answered: number[] = [];
    const add = (item: number) => group.add(item).then((n) => void answered.push(n));
    const first = Promise.all([add(1), add(2)]);
    await turn();
    await turn();
    assert.deepEqual(batches, [[1, 2]], 'the first batch is written');
    assert.deepEqual(answered, [], 'but not answered before its flush');

    const second = add(3);
    await turn();
    await turn();
    assert.deepEqual(batches, [[1, 2]], 'a smaller batch waits for the flush');
    const third = add(4);
    await turn();
    await turn();
    assert.deepEqual(
      batches,
      [
        [1, 2],
        [3, 4],
      ],
      'as large, it is written while the first one is flushed',
    );
    assert.deepEqual(answered, []);

    flushes[1]!.resolve();
    await Promise.all([second, third]);
    assert.deepEqual(answered, [3, 4]);
    flushes[0]!.resolve();
    await first;
    assert.deepEqual(answered, [3, 4, 1, 2]);

    // nothing is being flushed now: a lone item goes at once
    const fourth = add(5);
    await turn();
    await turn();
    assert.deepEqual(batches.at(-1), [5]);
    flushes[2]!.resolve();
    await fourth;
  });

  it('writes a smaller batch once the flush before it ends', async () => {
    const flush = deferred();
    const batches: number[][] = [];
    let durableAsked = 0;
    const group = new GroupCommit<number, number>(
      async (items) => {
        batches.push(items);
        return items;
      },
      () => (durableAsked++ === 0 ? flush.promise : Promise.resolve()),
    );
    const first = Promise.all([group.add(1), group.add(2)]);
    await turn();
    const second = group.add(3);
    await turn();
    await turn();
    assert.deepEqual(batches, [[1, 2]]);
    flush.resolve();
    assert.deepEqual(await Promise.all([first, second]), [[1, 2], 3]);
    assert.deepEqual(batches, [[1, 2], [3]]);
  });

  it('refuses every item of a batch whose flush failed', async () => {
    const group = new GroupCommit<number, number>(
      async (items) => items,
      () => Promise.reject(new Error('EIO: the disk failed')),
    );
    const outcomes = await Promise.allSettled([group.add(1), group.add(2)]);
    assert.deepEqual(
      outcomes.map((outcome) => outcome.status === 'rejected' && (outcome.reason as Error).message),
      ['EIO: the disk failed', 'EIO: the disk failed'],
    );
  });

  it('tries each item alone when a batch fails, so one bad item sinks only itself', async () => {
    const group = new GroupCommit<number, number>(async (items) => {
      if (items.includes(2)) throw new Error(`bad item in [${items.join(', ')}]`);
      return items;
    });
    const outcomes = await Promise.allSettled([1, 2, 3].map((item) => group.add(item)));
    assert.deepEqual(
      outcomes.map((outcome) => (outcome.status === 'fulfilled' ? outcome.value : (outcome.reason as Error).message)),
      [1, 'bad item in [2]', 3],
    );
  });
});
