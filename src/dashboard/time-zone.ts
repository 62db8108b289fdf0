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
