import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { describe, it } from 'node:test';
import { ProblemError } from '../../src/errors.js';
import { CursorCodec } from '../../src/web/pagination.js';

const SECRET = 'unit-test-secret-0123456789abcdefghijklmnop';
const POSITION = { createdAt: 1_731_000_000_123, id: 'abcdefghijklmnopqrst' };

/** The cursor was refused as a `400 validation_error` naming `startingAfter`. */
function refused(error: unknown): boolean {
  assert.ok(error instanceof ProblemError, `a ProblemError, got ${String(error)}`);
  assert.equal(error.code, 'validation_error');
  assert.equal(error.status, 400);
  const errors = error.extra.errors as string[];
  assert.ok(Array.isArray(errors) && errors.some((e) => e.startsWith('startingAfter:')), JSON.stringify(errors));
  return true;
}

/** A different character of the cursor alphabet at position `i`. */
function withCharReplaced(cursor: string, i: number): string {
  const c = cursor[i]!;
  const replacement = c === 'A' ? 'B' : 'A';
  return cursor.slice(0, i) + replacement + cursor.slice(i + 1);
}

describe('CursorCodec', () => {
  const codec = new CursorCodec(SECRET);

  it('round-trips a keyset position through an opaque, URL-safe cursor', () => {
    for (const position of [POSITION, { createdAt: 0, id: 'a' }, { createdAt: 9_999_999_999_999, id: 'z2345677'.repeat(8) }]) {
      const cursor = codec.encode('forms', position);
      assert.match(cursor, /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/, 'URL-safe');
      assert.ok(!cursor.includes(`${position.createdAt}.${position.id}`), 'opaque: the position is not written in clear');
      assert.deepEqual(codec.decode('forms', cursor), position);
    }
  });

  it('is deterministic for the same list and position, and differs for another position', () => {
    assert.equal(codec.encode('forms', POSITION), codec.encode('forms', POSITION));
    assert.notEqual(codec.encode('forms', POSITION), codec.encode('forms', { ...POSITION, createdAt: POSITION.createdAt + 1 }));
  });

  it('refuses a cursor with any one character changed', () => {
    const cursor = codec.encode('forms', POSITION);
    for (let i = 0; i < cursor.length; i++) {
      const tampered = withCharReplaced(cursor, i);
      assert.notEqual(tampered, cursor);
      assert.throws(() => codec.decode('forms', tampered), refused, `position ${i}: ${tampered}`);
    }
  });

  it('refuses truncated, spliced and malformed cursors', () => {
    const cursor = codec.encode('forms', POSITION);
    const [payload, mac] = cursor.split('.') as [string, string];
    const other = codec.encode('forms', { createdAt: 1, id: 'zzzz' });
    const [otherPayload, otherMac] = other.split('.') as [string, string];
    const bad = [
      '',
      '.',
      payload,
      `${payload}.`,
      `.${mac}`,
      cursor.slice(0, -1),
      cursor.slice(1),
      `${cursor}AA`,
      `${payload}.${otherMac}`,
      `${otherPayload}.${mac}`,
      `${payload}.${mac.slice(0, 12)}`,
      `${payload}!.${mac}`,
      ` ${cursor}`,
      `${'A'.repeat(300)}.${mac}`,
      Buffer.from(`${POSITION.createdAt}.${POSITION.id}`).toString('base64url'),
    ];
    const accepted = bad.filter((value) => {
      try {
        codec.decode('forms', value);
        return true;
      } catch (error) {
        return !refused(error);
      }
    });
    assert.deepEqual(accepted, [], 'every one is refused');
  });

  it('refuses a cursor whose signature part was changed in ways lenient base64 decoding ignores', () => {
    // A cursor is refused when modified (pagination.ts: "a modified cursor ... is refused"): the
    // signature must be compared as issued, not after a base64 decoding that skips stray characters.
    const cursor = codec.encode('forms', POSITION);
    const [payload, mac] = cursor.split('.') as [string, string];
    const variants = [
      `${cursor}A`,
      `${cursor}=`,
      `${cursor}==`,
      `${cursor}!`,
      `${cursor}.`,
      `${cursor} `,
      `${cursor}\n`,
      `${payload}.${mac.slice(0, 12)}!${mac.slice(12)}`,
      `${payload}..${mac}`,
    ];
    const accepted = variants.filter((value) => {
      try {
        codec.decode('forms', value);
        return true;
      } catch (error) {
        return !refused(error);
      }
    });
    assert.deepEqual(accepted, [], 'every variant is refused');
  });

  it('refuses a correctly signed payload that is not a keyset position', () => {
    // White box: sign payloads the way the codec does, so that only the payload check can refuse them.
    const sign = (text: string) => {
      const payload = Buffer.from(text).toString('base64url');
      const mac = createHmac('sha256', SECRET).update(`cursor|forms|${payload}`).digest().subarray(0, 18).toString('base64url');
      return `${payload}.${mac}`;
    };
    // the signing scheme above is the codec's: a valid position signed this way is accepted
    assert.deepEqual(codec.decode('forms', sign('12.abc')), { createdAt: 12, id: 'abc' });
    for (const text of [
      '',
      '12',
      '12.',
      '.abc',
      'x.abc',
      '-1.abc',
      '1.5.abc',
      '12.ABC',
      '12.abc!',
      '12.a b',
      '12345678901234567.abc',
      `12.${'a'.repeat(65)}`,
    ]) {
      assert.throws(() => codec.decode('forms', sign(text)), refused, JSON.stringify(text));
    }
  });

  it('binds a cursor to its list', () => {
    const cursor = codec.encode('forms', POSITION);
    assert.throws(() => codec.decode('workspaces', cursor), refused);
    assert.throws(() => codec.decode('forms:other-workspace', cursor), refused);
    assert.throws(() => codec.decode('Forms', cursor), refused);
    const other = codec.encode('workspaces', POSITION);
    assert.notEqual(other, cursor);
    assert.deepEqual(codec.decode('workspaces', other), POSITION);
    assert.throws(() => codec.decode('forms', other), refused);
  });

  it('refuses a cursor signed with another secret', () => {
    const cursor = codec.encode('forms', POSITION);
    const other = new CursorCodec('another-secret-0123456789abcdefghijklmnop');
    assert.throws(() => other.decode('forms', cursor), refused);
    assert.throws(() => codec.decode('forms', other.encode('forms', POSITION)), refused);
    assert.deepEqual(other.decode('forms', other.encode('forms', POSITION)), POSITION);
  });
});
