import assert from 'node:assert/strict';
import fs from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { WalSync } from '../../src/db/wal-sync.js';

const turn = () => new Promise((resolve) => setImmediate(resolve));

/** A stand-in for fdatasync that holds each flush until the test lets it finish. */
class HeldFlushes {
  readonly started: { inode: number; finish(error?: Error): void }[] = [];

  readonly dataSync = async (handle: FileHandle): Promise<void> => {
    const { ino } = await handle.stat();
    return new Promise((resolve, reject) => this.started.push({ inode: ino, finish: (error) => (error ? reject(error) : resolve()) }));
  };

  /** Waits for the next flush to start (the stand-in is reached through the thread pool). */
  async next(count: number): Promise<void> {
    for (let i = 0; i < 200 && this.started.length < count; i++) await new Promise((resolve) => setTimeout(resolve, 5));
    assert.equal(this.started.length, count, `${count} flush(es) started`);
  }
}

describe('WalSync: commits made durable off the event loop', () => {
  let dir: string;
  let walPath: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'formgate-wal-sync-'));
    walPath = path.join(dir, 'formgate.db-wal');
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  /** A transaction that begins and ends at once, and the wait for it to be durable. */
  const committed = (sync: WalSync): Promise<void> => {
    const generation = sync.begin();
    sync.end(generation);
    return sync.whenDurable(generation);
  };

  const settledFlag = (promise: Promise<void>) => {
    const state = { settled: false };
    promise.then(
      () => (state.settled = true),
      () => (state.settled = true),
    );
    return state;
  };

  it('answers at once when nothing waits to be flushed', async () => {
    fs.writeFileSync(walPath, 'frames');
    const flushes = new HeldFlushes();
    const sync = new WalSync(walPath, flushes.dataSync);
    await sync.whenDurable();
    assert.equal(flushes.started.length, 0);
    await sync.close();
  });

  it('waits for a flush that starts after the transaction ended, and shares flushes among waiters', async () => {
    fs.writeFileSync(walPath, 'frames');
    const flushes = new HeldFlushes();
    const sync = new WalSync(walPath, flushes.dataSync);

    const first = sync.begin();
    const firstDurable = sync.whenDurable(first);
    await turn();
    assert.equal(flushes.started.length, 0, 'no flush while the transaction is still writing');
    sync.end(first);
    await flushes.next(1);
    const firstState = settledFlag(firstDurable);

    // two more transactions end while that flush runs: one later flush covers both
    const second = sync.begin();
    sync.end(second);
    const third = sync.begin();
    sync.end(third);
    const laterDurable = Promise.all([sync.whenDurable(second), sync.whenDurable(third), sync.whenDurable()]);
    const laterState = settledFlag(laterDurable.then(() => undefined));
    await turn();
    assert.equal(firstState.settled, false, 'not durable before its flush finished');

    flushes.started[0]!.finish();
    await firstDurable;
    await flushes.next(2);
    assert.equal(laterState.settled, false, 'the flush that began before they ended does not count for them');
    flushes.started[1]!.finish();
    await laterDurable;
    assert.equal(flushes.started.length, 2);
    await sync.whenDurable(third);
    assert.equal(flushes.started.length, 2, 'what is durable needs no new flush');
    await sync.close();
  });

  it('passes a failed flush on to its waiters, and flushes again for the next', async () => {
    fs.writeFileSync(walPath, 'frames');
    const flushes = new HeldFlushes();
    const sync = new WalSync(walPath, flushes.dataSync);
    const failedDurable = committed(sync);
    await flushes.next(1);
    flushes.started[0]!.finish(new Error('EIO: the disk failed'));
    await assert.rejects(failedDurable, /EIO/);

    const nextDurable = committed(sync);
    await flushes.next(2);
    flushes.started[1]!.finish();
    await nextDurable;
    await sync.close();
  });

  it('keeps flushing the file it opened, which SQLite keeps writing, even when the path is replaced', async () => {
    fs.writeFileSync(walPath, 'frames');
    const opened = fs.statSync(walPath).ino;
    const flushes = new HeldFlushes();
    const sync = new WalSync(walPath, flushes.dataSync);
    const firstDurable = committed(sync);
    await flushes.next(1);
    flushes.started[0]!.finish();
    await firstDurable;

    fs.rmSync(walPath);
    fs.writeFileSync(walPath, 'another file');
    const secondDurable = committed(sync);
    await flushes.next(2);
    assert.deepEqual(
      flushes.started.map((flush) => flush.inode),
      [opened, opened],
    );
    flushes.started[1]!.finish();
    await secondDurable;
    await sync.close();
  });
});
