import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { TemplateWorkers } from '../../src/mail/template-workers.js';
import { MAX_TEMPLATE_STATEMENTS } from '../../src/mail/template-engine.js';

/** A watchdog the test fires itself: whether a job is "too slow" no longer depends on the machine. */
function manualWatchdog() {
  const armed = new Set<() => void>();
  let onArmed: (() => void) | null = null;
  return {
    start: (_ms: number, expire: () => void) => {
      armed.add(expire);
      onArmed?.();
      return () => armed.delete(expire);
    },
    /** Resolves as the next job starts, in the same turn: its thread cannot have answered yet. */
    nextStart: () => new Promise<void>((resolve) => (onArmed = resolve)),
    fireAll: () => {
      for (const expire of [...armed]) expire();
    },
    get armed() {
      return armed.size;
    },
  };
}

// as many placeholders as a template may hold: Handlebars takes a few hundred milliseconds to compile it, more on a busy machine
const BIG = '{{data.a}}'.repeat(MAX_TEMPLATE_STATEMENTS);

describe('template workers', () => {
  const pools: TemplateWorkers[] = [];
  const pool = (options: ConstructorParameters<typeof TemplateWorkers>[0] = {}) => {
    const workers = new TemplateWorkers(options);
    pools.push(workers);
    return workers;
  };
  after(() => Promise.all(pools.map((p) => p.close())));

  it('renders on a thread of its own, and checks code as a write does', async () => {
    const workers = pool({ size: 1 });
    assert.deepEqual(await workers.render('<p>{{data.car}}</p>', { car: { color: 'red' } }), { ok: true, html: '<p>color: red</p>', text: 'color: red' });
    assert.deepEqual(await workers.check('<p>Hi {{data.name}}</p>'), { ok: true, html: '<p>Hi </p>', text: 'Hi' });
    const refused = await workers.check('{{> header}}');
    assert.equal(refused.ok, false);
    assert.deepEqual(!refused.ok && refused.problem === 'invalid' && refused.errors, ['line 1, column 1: partials are not allowed']);
  });

  it('answers the limits as outcomes: too large (1 MiB), too slow', async () => {
    const workers = pool({ size: 1, limits: { outputChars: 100 } });
    assert.deepEqual(await workers.render('{{data.a}}', { a: 'x'.repeat(101) }), {
      ok: false,
      problem: 'too_large',
      message: 'the rendered template is larger than 100 characters',
    });
  });

  it('answers a write by what the template holds, never by how long compiling took', async () => {
    // a time limit of 1 ms: 1,000 sections take far longer to compile, on any machine, and are still accepted (with no
    // data they render without a step, so the render's own clock is never read)
    const workers = pool({ size: 1, limits: { timeMs: 1 }, startWatchdog: manualWatchdog().start });
    assert.deepEqual(await workers.check('{{#data.a}}x{{/data.a}}'.repeat(1_000)), { ok: true, html: '', text: '' });
    const deep = `${'{{#if data.a}}'.repeat(33)}x${'{{/if}}'.repeat(33)}`;
    assert.deepEqual(await workers.check(deep), {
      ok: false,
      problem: 'invalid',
      errors: ['code: blocks and helper calls nested 33 deep, deeper than the 32 a template may nest'],
    });
  });

  it('refuses a template of more placeholders than a template may hold before compiling it', async () => {
    // the watchdog never fires: the answer cannot depend on the machine
    const workers = pool({ size: 1, startWatchdog: manualWatchdog().start });
    // 26,000 placeholders would take seconds and more than the thread's 128 MB to compile: a thread
    // past its heap limit can abort the whole process (nodejs/node#47224), so they are never compiled:
    // the answer is the count, not the watchdog's too_slow or the heap limit's too_large
    const outcome = await workers.check('{{data.a}}'.repeat(26_000));
    assert.deepEqual(!outcome.ok && outcome.problem === 'invalid' && outcome.errors, [
      'code: 26000 placeholders, blocks and helper calls, more than the 2000 a template may hold',
    ]);
  });

  it('keeps the event loop free while a big template compiles', async () => {
    const workers = pool({ size: 1, startWatchdog: manualWatchdog().start });
    let turns = 0;
    let compiling = true;
    const tick = () => {
      turns++;
      if (compiling) setImmediate(tick);
    };
    setImmediate(tick);
    const outcome = await workers.check(BIG);
    compiling = false;
    // as many placeholders as a template may hold: accepted on any machine, however long it took
    assert.equal(outcome.ok, true, JSON.stringify(outcome));
    assert.ok(turns > 1, `the event loop turned ${turns} times while it compiled`);
  });

  it('ends a thread past its watchdog and goes on with a fresh one', async () => {
    const watchdog = manualWatchdog();
    const workers = pool({ size: 1, startWatchdog: watchdog.start });
    const started = watchdog.nextStart();
    const stuck = workers.check(BIG);
    const queued = workers.render('<p>{{data.name}}</p>', { name: 'Ada' });
    await started;
    assert.equal(watchdog.armed, 1, 'one job runs, the other waits');
    watchdog.fireAll();
    assert.deepEqual(await stuck, { ok: false, problem: 'too_slow', message: 'compiling and rendering took longer than 15000 ms' });
    assert.deepEqual(await queued, { ok: true, html: '<p>Ada</p>', text: 'Ada' });
    assert.equal(watchdog.armed, 0);
  });

  it('runs jobs side by side on several threads, each answered in turn', async () => {
    const workers = pool({ size: 2 });
    const outcomes = await Promise.all(Array.from({ length: 20 }, (_, i) => workers.render('{{data.i}}', { i })));
    assert.deepEqual(
      outcomes.map((o) => o.ok && o.html),
      Array.from({ length: 20 }, (_, i) => String(i)),
    );
  });
});
