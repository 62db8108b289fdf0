import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/** How a MAC is written into what it signs: the HMAC-SHA256 digest in, text out (a prefix of base64url, say). */
export type MacShape = (digest: Buffer) => string;

const BASE64URL: MacShape = (digest) => digest.toString('base64url');

/**
 * The installation's signing secrets: everything new is signed with the current one; what was
 * signed with a previous one (FORMGATE_SECRET_PREVIOUS) still verifies, so a secret can be rotated
 * without logging everyone out or breaking links and cursors handed out before.
 */
export class Keyring {
  readonly previous: readonly string[];

  constructor(
    readonly current: string,
    previous: readonly string[] = [],
  ) {
    this.previous = previous.filter((secret) => secret !== current);
  }

  /** Current first: the order cookie signers and verifiers want. */
  get all(): string[] {
    return [this.current, ...this.previous];
  }

  /** The MAC of `message` under the current secret. */
  sign(message: string, shape: MacShape = BASE64URL): string {
    return shape(hmac(this.current, message));
  }

  /** Whether `given` is the MAC of `message` under the current secret or a previous one (compared in constant time). */
  verify(message: string, given: string, shape: MacShape = BASE64URL): boolean {
    const givenBytes = Buffer.from(given);
    return this.all.some((secret) => {
      const expected = Buffer.from(shape(hmac(secret, message)));
      return expected.length === givenBytes.length && timingSafeEqual(expected, givenBytes);
    });
  }

  /** A keyring of keys derived for one use (`label`), so a signature made for one purpose never passes for another. */
  derive(label: string): Keyring {
    const derive = (secret: string) => createHash('sha256').update(`${label}:${secret}`).digest('base64url');
    return new Keyring(derive(this.current), this.previous.map(derive));
  }
}

function hmac(secret: string, message: string): Buffer {
  return createHmac('sha256', secret).update(message).digest();
}
