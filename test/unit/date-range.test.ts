import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { filterQuery, readFilter } from '../../src/dashboard/date-range.js';

const DAY = 86_400_000;
const MESSAGE = 'Must be a date written YYYY-MM-DD, such as 2026-11-24.';

describe('the inbox’s filter (search, from, to as UTC days)', () => {
  it('reads both days inclusive: from at its start, to at the next day’s start (exclusive)', () => {
    const { values, filter, errors } = readFilter({ search: '  Quote ', from: '2026-01-01', to: '2026-01-31' });
    assert.deepEqual(values, { search: 'Quote', from: '2026-01-01', to: '2026-01-31' });
    assert.deepEqual(filter, { search: 'Quote', from: Date.UTC(2026, 0, 1), to: Date.UTC(2026, 0, 31) + DAY });
    assert.deepEqual(errors, {});
  });

  it('one day alone is a whole day', () => {
    const { filter } = readFilter({ from: '2024-02-29', to: '2024-02-29' });
    assert.equal(filter.to! - filter.from!, DAY);
  });

  it('nothing given filters nothing; other types are ignored', () => {
    assert.deepEqual(readFilter({}), { values: { search: '', from: '', to: '' }, filter: {}, errors: {} });
    assert.deepEqual(readFilter({ search: ['a', 'b'], from: 5 }).filter, {});
  });

  it('refuses a day that does not exist or is written otherwise, beside its field, and filters nothing by it', () => {
    for (const bad of ['2026-02-30', '2025-02-29', '2026-13-01', '26-01-01', '2026-1-1', '01/02/2026', 'today', '2026-01-01T00:00']) {
      const { filter, errors } = readFilter({ from: bad, to: bad, search: 'x' });
      assert.deepEqual(errors, { from: MESSAGE, to: MESSAGE }, bad);
      assert.deepEqual(filter, { search: 'x' }, bad);
    }
  });

  it('refuses a To before From, and keeps From', () => {
    const { filter, errors } = readFilter({ from: '2026-03-02', to: '2026-03-01' });
    assert.deepEqual(errors, { to: 'Must be the same day as From or later.' });
    assert.deepEqual(filter, { from: Date.UTC(2026, 2, 2) });
  });

  it('writes the filter back as a query string, only what is set', () => {
    assert.equal(filterQuery({ search: 'a&b c', from: '', to: '2026-01-02' }), 'search=a%26b+c&to=2026-01-02');
    assert.equal(filterQuery({ search: '', from: '', to: '' }), '');
  });

  it('refuses a search longer than the API’s 256 characters, beside its field, and searches nothing by it', () => {
    const { filter, errors } = readFilter({ search: 'é'.repeat(257), from: '2026-01-01' });
    assert.deepEqual(errors, { search: 'Must be at most 256 characters.' });
    assert.deepEqual(filter, { from: Date.UTC(2026, 0, 1) });
    assert.equal(readFilter({ search: 'é'.repeat(256) }).filter.search, 'é'.repeat(256));
  });
});
