import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, it } from 'node:test';
import { eventLoopSaturation, VisitorLoad } from '../../src/submit/visitor-load.js';

/** Keeps the event loop busy for `ms`, as a saturated process does. */
function spin(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

describe('visitor load', () => {
  it('is busy only while visitors wait on a saturated process', () => {
    let saturated = true;
    const load = new VisitorLoad(() => saturated);
    assert.equal(load.busy(), false, 'saturated, but nobody waits');
    load.enter();
    load.enter();
    assert.equal(load.visitors, 2);
    assert.equal(load.busy(), true);
    saturated = false;
    assert.equal(load.busy(), false, 'visitors wait, but the process has time to spare');
    saturated = true;
    load.leave();
    assert.equal(load.busy(), true);
    load.leave();
    assert.equal(load.visitors, 0);
    assert.equal(load.busy(), false);
  });

  it('reads the event loop as saturated after it was kept busy, and as free after it waited', async () => {
    const saturation = eventLoopSaturation(50, 0.8);
    await sleep(60);
    assert.equal(saturation(), false, 'an idle loop');
    spin(80);
    assert.equal(saturation(), true, 'a loop busy all along');
    await sleep(80);
    assert.equal(saturation(), false, 'waiting again');
  });

  it('keeps a reading until its window has passed', async () => {
    const saturation = eventLoopSaturation(10_000, 0.8);
    spin(30);
    assert.equal(saturation(), false, 'the window is not over: the first reading (idle) stands');
    const short = eventLoopSaturation(20, 0.8);
    spin(30);
    assert.equal(short(), true);
    await sleep(5);
    assert.equal(short(), true, 'within the window the last reading stands');
  });
});
