import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { localInputOf, msOfLocalInput } from '../../src/dashboard/time-zone.js';

describe('a datetime-local input in the viewer’s time zone', () => {
  it('reads and shows a wall-clock time in a zone, both sides of summer time', () => {
    assert.equal(new Date(msOfLocalInput('2031-01-15T09:30', 'Europe/Oslo')).toISOString(), '2031-01-15T08:30:00.000Z');
    assert.equal(new Date(msOfLocalInput('2031-07-15T09:30', 'Europe/Oslo')).toISOString(), '2031-07-15T07:30:00.000Z');
    assert.equal(new Date(msOfLocalInput('2031-07-15T09:30', 'America/New_York')).toISOString(), '2031-07-15T13:30:00.000Z');
    assert.equal(new Date(msOfLocalInput('2031-07-15T09:30', 'Asia/Kolkata')).toISOString(), '2031-07-15T04:00:00.000Z');
    assert.equal(new Date(msOfLocalInput('2031-07-15T09:30:15', 'UTC')).toISOString(), '2031-07-15T09:30:15.000Z');
    assert.equal(localInputOf(Date.parse('2031-01-15T08:30:00Z'), 'Europe/Oslo'), '2031-01-15T09:30');
    assert.equal(localInputOf(Date.parse('2031-07-15T13:30:00Z'), 'America/New_York'), '2031-07-15T09:30');
  });

  it('goes round trip on every hour of a year with two clock changes', () => {
    const start = Date.parse('2031-01-01T00:00:00Z');
    for (let hour = 0; hour < 366 * 24; hour += 1) {
      const ms = start + hour * 3_600_000;
      const shown = localInputOf(ms, 'Europe/Berlin');
      const read = msOfLocalInput(shown, 'Europe/Berlin');
      // the hour repeated when clocks go back reads as its first pass: shown the same either way
      assert.equal(localInputOf(read, 'Europe/Berlin'), shown, shown);
    }
  });

  it('refuses what is not a date and time', () => {
    for (const bad of ['', 'soon', '2031-02-30T10:00', '2031-13-01T10:00', '2031-01-01 10:00', '2031-01-01T24:00', '20310-01-01T10:00']) {
      assert.ok(Number.isNaN(msOfLocalInput(bad, 'Europe/Oslo')), bad);
    }
  });
});
