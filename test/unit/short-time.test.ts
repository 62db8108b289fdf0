import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatShortTime, inZone } from '../../src/dashboard/time-zone.js';

const NOW = Date.parse('2026-11-30T09:00:00Z');

describe('a list’s short time', () => {
  it('reads as mail clients write it: the time today, the day this year, the day and year before', () => {
    assert.equal(formatShortTime(Date.parse('2026-11-30T00:41:00Z'), NOW).text, '00:41');
    assert.equal(formatShortTime(Date.parse('2026-11-29T23:59:00Z'), NOW).text, '29 Nov');
    assert.equal(formatShortTime(Date.parse('2026-01-01T00:00:00Z'), NOW).text, '1 Jan');
    assert.equal(formatShortTime(Date.parse('2025-12-31T23:59:00Z'), NOW).text, '31 Dec 2025');
  });

  it('counts today and this year in the viewer’s zone, and says the whole time with UTC on hover', () => {
    // 23:30 UTC on the 29th is the 30th in Tokyo: today there
    const late = Date.parse('2026-11-29T23:30:00Z');
    const tokyo = inZone('Asia/Tokyo', () => formatShortTime(late, NOW));
    assert.deepEqual(tokyo, { text: '08:30', full: '30 Nov 2026, 08:30 GMT+9 (29 Nov 2026, 23:30 UTC)', iso: '2026-11-29T23:30:00.000Z' });
    assert.deepEqual(formatShortTime(late, NOW), { text: '29 Nov', full: '29 Nov 2026, 23:30 UTC', iso: '2026-11-29T23:30:00.000Z' });
    // New Year's Eve in Los Angeles is already next year in UTC
    const eve = Date.parse('2027-01-01T02:00:00Z');
    assert.equal(
      inZone('America/Los_Angeles', () => formatShortTime(eve, Date.parse('2027-01-02T12:00:00Z')).text),
      '31 Dec 2026',
    );
  });
});
