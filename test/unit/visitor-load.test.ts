import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { eventLoopSaturation, VisitorLoad } from '../../src/submit/visitor-load.js';

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

  /** An event loop whose busy and idle time the test moves, as a real one would under load. */
  function fakeLoop() {
    const times = { idle: 0, active: 0 };
    return {
      read: () => ({ ...times }),
      busy: (ms: number) => {
        times.active += ms;
      },
      idle: (ms: number) => {
        times.idle += ms;
      },
    };
  }

  it('reads the event loop as saturated after it was kept busy, and as free after it waited', () => {
    const loop = fakeLoop();
    const saturation = eventLoopSaturation(50, 0.8, loop.read);
    loop.idle(60);
    assert.equal(saturation(), false, 'an idle loop');
    loop.busy(80);
    assert.equal(saturation(), true, 'a loop busy all along');
    loop.busy(45);
    loop.idle(10);
    assert.equal(saturation(), true, 'busy 82% of the window: still saturated');
    loop.idle(80);
    assert.equal(saturation(), false, 'waiting again');
  });

  it('keeps a reading until its window has passed', () => {
    const loop = fakeLoop();
    const saturation = eventLoopSaturation(10_000, 0.8, loop.read);
    loop.busy(30);
    assert.equal(saturation(), false, 'the window is not over: the first reading (idle) stands');
    const short = eventLoopSaturation(20, 0.8, loop.read);
    loop.busy(30);
    assert.equal(short(), true);
    loop.idle(5);
    assert.equal(short(), true, 'within the window the last reading stands');
    loop.idle(20);
    assert.equal(short(), false, 'a new window, idle');
  });
});
