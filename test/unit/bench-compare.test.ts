import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compare, figuresOf, formatComparisons, median } from '../../bench/lib/compare-figures.js';

describe('bench:compare: telling a difference from noise', () => {
  it('calls a difference only when every run of one side beats every run of the other, by 3% or more', () => {
    const slower = compare('sqlite: submit, server CPU per submission (µs)', [400, 410, 395], [480, 470, 500], 'lower');
    assert.equal(slower.verdict, 'worse');
    assert.ok(Math.abs(slower.ratio - 480 / 400) < 1e-9);
    assert.equal(slower.ratioLow, 470 / 410);
    assert.equal(slower.ratioHigh, 500 / 395);

    assert.equal(compare('x', [400, 410, 395], [380, 370, 360], 'lower').verdict, 'better');
    assert.equal(compare('x', [0.4, 0.42, 0.41], [0.5, 0.48, 0.49], 'higher').verdict, 'better');
    assert.equal(compare('x', [400, 450, 395], [420, 430, 410], 'lower').verdict, 'within noise', 'the ranges overlap');
    assert.equal(compare('x', [400, 401, 402], [405, 406, 407], 'lower').verdict, 'within noise', 'apart, but by under 3%');
  });

  it('reads the figures of a results file, per dialect, and skips what a run did not measure', () => {
    const figures = figuresOf({
      submit: [{ dialect: 'sqlite', formgate: { requestsPerSec: 300, p99Ms: 40 }, floor: { requestsPerSec: 600 }, cpuPerRequestUs: 400, peakRssMb: null }],
      list: [{ dialect: 'postgres', walk: { requestsPerSec: 100 }, floor: { requestsPerSec: 200 }, walkCpuPerRequestUs: 350 }],
    });
    assert.equal(figures.get('sqlite: submit, share of its storage floor'), 0.5);
    assert.equal(figures.get('sqlite: submit, server CPU per submission (µs)'), 400);
    assert.equal(figures.has('sqlite: submit, peak RSS (MB)'), false);
    assert.equal(figures.get('postgres: list walks, server CPU per page (µs)'), 350);
    assert.equal(median([3, 1, 2, 10]), 2.5);
    const table = formatComparisons('31eb4e5', [compare('sqlite: a', [1, 1.1], [2, 2.1], 'higher')]);
    assert.match(table, /^sqlite: a \| 1\.05 \(1\.00, 1\.10\) \| 2\.05 \(2\.00, 2\.10\) \| 1\.952 \(1\.82–2\.10\) \| better$/m);
  });
});
