import { AsyncLocalStorage } from 'node:async_hooks';
import type { FastifyRequest } from 'fastify';
import { isTimeZone } from '../domain/time-zones.js';

/**
 * The viewer's time zone while a page renders: every time the dashboard shows goes through
 * `formatTime`, which reads it from here (sendPage sets it), so no view passes a zone around.
 */
const zones = new AsyncLocalStorage<string>();

/** The cookie the browser's script (assets/time-zone.js) writes its own zone in. */
export const TZ_COOKIE = 'tz';

/** The viewer's zone: the account's setting, else the browser's (its cookie, checked), else UTC. */
export function zoneOf(request: FastifyRequest): string {
  const saved = request.account?.user.timeZone;
  if (isTimeZone(saved)) return saved;
  const browser = request.cookies?.[TZ_COOKIE];
  return isTimeZone(browser) ? browser : 'UTC';
}

/** Runs `render` with times shown in `zone`. */
export function inZone<T>(zone: string, render: () => T): T {
  return zones.run(zone, render);
}

const formats = new Map<string, Intl.DateTimeFormat>();

function formatOf(zone: string): Intl.DateTimeFormat {
  let format = formats.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-GB', {
      day: 'numeric',
      month: 'short',
      year: 'numeric',
      hour: '2-digit',
      minute: '2-digit',
      timeZone: zone,
      ...(zone === 'UTC' ? {} : { timeZoneName: 'short' }),
    });
    formats.set(zone, format);
  }
  return format;
}

/**
 * A time as the dashboard shows it, in the viewer's zone ("24 Nov 2026, 11:02 CET"; "… UTC" when no
 * zone is known), with the same time in UTC and as ISO 8601 for `<time>`'s attributes.
 */
export function formatTime(ms: number): { text: string; utc: string; iso: string } {
  const date = new Date(ms);
  const zone = zones.getStore() ?? 'UTC';
  const utc = `${formatOf('UTC').format(date)} UTC`;
  return { text: zone === 'UTC' ? utc : formatOf(zone).format(date), utc, iso: date.toISOString() };
}

const LOCAL_INPUT = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?$/;

/** How far `zone`'s clock is ahead of UTC at `ms`, in ms (Intl's reading of the wall clock there). */
function offsetAt(ms: number, zone: string): number {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    })
      .formatToParts(new Date(ms))
      .map((p) => [p.type, Number(p.value)]),
  );
  return Date.UTC(parts.year!, parts.month! - 1, parts.day!, parts.hour!, parts.minute!, parts.second!) - Math.floor(ms / 1000) * 1000;
}

/** A time as a `datetime-local` input shows it in `zone` (`2026-12-01T09:30`). */
export function localInputOf(ms: number, zone: string): string {
  return new Date(ms + offsetAt(ms, zone)).toISOString().slice(0, 16);
}

/**
 * The time a `datetime-local` input's value names in `zone`, or NaN for one that is not such a value.
 * NOTE: a wall-clock time skipped by a change to summer time is read with the offset before it.
 */
export function msOfLocalInput(value: string, zone: string): number {
  const m = LOCAL_INPUT.exec(value);
  if (!m) return Number.NaN;
  const wall = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6] ?? 0));
  if (!Number.isFinite(wall) || new Date(wall).toISOString().slice(0, 16) !== value.slice(0, 16)) return Number.NaN;
  // the offset of the wall time read as UTC, then again at the guess: right on both sides of a change
  const guess = wall - offsetAt(wall, zone);
  return wall - offsetAt(guess, zone);
}

const shortFormats = new Map<string, { time: Intl.DateTimeFormat; day: Intl.DateTimeFormat; dayYear: Intl.DateTimeFormat; key: Intl.DateTimeFormat }>();

function shortFormatsOf(zone: string) {
  let formats = shortFormats.get(zone);
  if (!formats) {
    formats = {
      time: new Intl.DateTimeFormat('en-GB', { hour: '2-digit', minute: '2-digit', timeZone: zone }),
      day: new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', timeZone: zone }),
      dayYear: new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', year: 'numeric', timeZone: zone }),
      // the day in the zone as a comparable string (`2026-11-30`)
      key: new Intl.DateTimeFormat('en-CA', { year: 'numeric', month: '2-digit', day: '2-digit', timeZone: zone }),
    };
    shortFormats.set(zone, formats);
  }
  return formats;
}

/**
 * A time as a list's column shows it, as mail clients do: "14:02" today, "29 Nov" this year, "29 Nov
 * 2025" before, in the viewer's zone; with the whole time for the title (and in UTC beside another
 * zone's) and ISO 8601 for `datetime`.
 */
export function formatShortTime(ms: number, now = Date.now()): { text: string; full: string; iso: string } {
  const zone = zones.getStore() ?? 'UTC';
  const formats = shortFormatsOf(zone);
  const date = new Date(ms);
  const day = formats.key.format(date);
  const today = formats.key.format(new Date(now));
  const text = day === today ? formats.time.format(date) : day.slice(0, 4) === today.slice(0, 4) ? formats.day.format(date) : formats.dayYear.format(date);
  const whole = formatTime(ms);
  return { text, full: whole.text === whole.utc ? whole.utc : `${whole.text} (${whole.utc})`, iso: whole.iso };
}
