// The metrics pass `promtool check metrics`: prom-client's default gauges nodejs_active_*_total
// broke its rule that only counters end in `_total` (issue 38, item 23). The rule is checked here
// on every run, and promtool itself runs where it is installed (Debian's `prometheus` package).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { Metrics } from '../../src/metrics/metrics.js';

const promtool = spawnSync('promtool', ['--version']).status === 0;

/** Each metric's name and type, from the `# TYPE` lines of the text format. */
function typesOf(text: string): Array<{ name: string; type: string }> {
  return [...text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map(([, name, type]) => ({ name: name!, type: type! }));
}

describe('metric names', () => {
  it('only counters end in _total, and every counter does', async () => {
    const types = typesOf(await new Metrics().registry.metrics());
    assert.ok(types.length > 20, `the default metrics and Formgate's: ${types.length}`);
    assert.deepEqual(
      types.filter(({ name, type }) => (type === 'counter') !== name.endsWith('_total')),
      [],
    );
    assert.ok(
      types.some(({ name }) => name === 'nodejs_active_handles'),
      'the counts by type remain',
    );
  });

  it('passes promtool check metrics', { skip: !promtool && 'promtool is not installed' }, async () => {
    const run = spawnSync('promtool', ['check', 'metrics'], { input: await new Metrics().registry.metrics(), encoding: 'utf8', timeout: 30_000 });
    assert.deepEqual({ status: run.status, out: run.stdout + run.stderr }, { status: 0, out: '' });
  });
});
