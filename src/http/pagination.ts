import { createHmac, timingSafeEqual } from 'node:crypto';
import { validationError } from '../errors.js';
import type { Keyset, Page } from '../services/pagination.js';

/**
 * Opaque, tamper-evident cursors. A cursor carries the keyset position (createdAt, id) and an
 * HMAC over it and the list it belongs to, so a modified cursor, or one from another list, is refused.
 */
export class CursorCodec {
  constructor(private readonly secret: string) {}

  encode(list: string, position: Keyset): string {
    const payload = Buffer.from(`${position.createdAt}.${position.id}`).toString('base64url');
    return `${payload}.${this.mac(list, payload)}`;
  }

  decode(list: string, cursor: string): Keyset {
    const refused = validationError(['startingAfter: is not a cursor issued by this API for this list'], 'The cursor is invalid.');
    const dot = cursor.indexOf('.');
    if (dot <= 0 || cursor.length > 200) throw refused;
    const payload = cursor.slice(0, dot);
    const given = Buffer.from(cursor.slice(dot + 1), 'base64url');
    const expected = Buffer.from(this.mac(list, payload), 'base64url');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw refused;
    const match = /^(\d{1,16})\.([a-z2-7]{1,64})$/.exec(Buffer.from(payload, 'base64url').toString());
    if (!match) throw refused;
    return { createdAt: Number(match[1]), id: match[2]! };
  }

  private mac(list: string, payload: string): string {
    return createHmac('sha256', this.secret).update(`cursor|${list}|${payload}`).digest().subarray(0, 18).toString('base64url');
  }
}

/** The page envelope of 2.7. */
export interface Envelope<T> {
  data: T[];
  hasMore: boolean;
  nextCursor: string | null;
}

/** Turns a page of rows into the envelope, with the next cursor signed for `list`. */
export function toEnvelope<Row extends Keyset, T>(codec: CursorCodec, list: string, page: Page<Row>, map: (row: Row) => T): Envelope<T> {
  const last = page.rows[page.rows.length - 1];
  return {
    data: page.rows.map(map),
    hasMore: page.hasMore,
    nextCursor: page.hasMore && last ? codec.encode(list, { createdAt: last.createdAt, id: last.id }) : null,
  };
}

/** The keyset request of a list query; a `startingAfter` not issued for `list` is `400`. */
export function pageRequest(codec: CursorCodec, list: string, query: { limit: number; startingAfter?: string }) {
  return { limit: query.limit, after: query.startingAfter === undefined ? null : codec.decode(list, query.startingAfter) };
}
