import { validationError } from '../errors.js';
import { Keyring, type MacShape } from '../keyring.js';
import { type Keyset, nextOf, type Page } from '../services/pagination.js';

// 18 bytes of the HMAC: 24 base64url characters, none with ignored bits
const CURSOR_MAC: MacShape = (digest) => digest.subarray(0, 18).toString('base64url');
const CURSOR_SYNTAX = /^([A-Za-z0-9_-]{4,120})\.([A-Za-z0-9_-]{24})$/;

/**
 * Opaque, tamper-evident cursors. A cursor carries the keyset position (createdAt, id) and an
 * HMAC over it and the list it belongs to, so a modified cursor, or one from another list, is refused.
 */
export class CursorCodec {
  private readonly keyring: Keyring;

  constructor(secret: Keyring | string) {
    this.keyring = typeof secret === 'string' ? new Keyring(secret) : secret;
  }

  encode(list: string, position: Keyset): string {
    const payload = Buffer.from(`${position.createdAt}.${position.id}`).toString('base64url');
    return `${payload}.${this.keyring.sign(`cursor|${list}|${payload}`, CURSOR_MAC)}`;
  }

  decode(list: string, cursor: string): Keyset {
    // made only when refusing: an error's stack trace is not free, and most cursors are good
    const refused = () => validationError(['startingAfter: is not a cursor issued by this API for this list'], 'The cursor is invalid.');
    // NOTE: Node's base64url decoder skips characters it does not know, so the syntax is checked first.
    const parts = CURSOR_SYNTAX.exec(cursor);
    if (!parts) throw refused();
    const payload = parts[1]!;
    if (!this.keyring.verify(`cursor|${list}|${payload}`, parts[2]!, CURSOR_MAC)) throw refused();
    const match = /^(\d{1,16})\.([a-z2-7]{1,64})$/.exec(Buffer.from(payload, 'base64url').toString());
    if (!match) throw refused();
    return { createdAt: Number(match[1]), id: match[2]! };
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
  return { data: page.rows.map(map), hasMore: page.hasMore, nextCursor: nextCursorOf(codec, list, page) };
}

/**
 * The envelope as JSON text, from rows that are JSON text already (`rowJson`): for lists whose rows
 * carry stored JSON, which is then sent as stored instead of parsed and serialised again.
 */
export function envelopeJson<Row extends Keyset>(codec: CursorCodec, list: string, page: Page<Row>, rowJson: (row: Row) => string): string {
  const nextCursor = nextCursorOf(codec, list, page);
  return `{"data":[${page.rows.map(rowJson).join(',')}],"hasMore":${page.hasMore},"nextCursor":${nextCursor === null ? 'null' : JSON.stringify(nextCursor)}}`;
}

function nextCursorOf<Row extends Keyset>(codec: CursorCodec, list: string, page: Page<Row>): string | null {
  const next = nextOf(page);
  return next ? codec.encode(list, next) : null;
}

/** The keyset request of a list query; a `startingAfter` not issued for `list` is `400`. */
export function pageRequest(codec: CursorCodec, list: string, query: { limit?: number; startingAfter?: string }) {
  return { limit: query.limit ?? 25, after: query.startingAfter === undefined ? null : codec.decode(list, query.startingAfter) };
}
