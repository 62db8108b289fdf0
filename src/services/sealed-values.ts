import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import type { Keyring } from '../keyring.js';

const VERSION = 'v1';

/**
 * Values the server must read back but a copy of the database alone must not reveal (an
 * authenticator app's secret): AES-256-GCM under a key derived from the installation's secret for
 * one purpose. Sealed with the current secret; what a previous one sealed (FORMGATE_SECRET_PREVIOUS)
 * still opens, so a rotation keeps every app working. `context` (the account's id) binds a sealed
 * value to its row: copied onto another account, it does not open.
 */
export class SealedValues {
  constructor(private readonly keyring: Keyring) {}

  seal(value: string, context: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', keyOf(this.keyring.current), iv);
    cipher.setAAD(Buffer.from(context));
    const sealed = Buffer.concat([cipher.update(value, 'utf8'), cipher.final()]);
    return [VERSION, iv.toString('base64url'), sealed.toString('base64url'), cipher.getAuthTag().toString('base64url')].join('.');
  }

  /** The value, or null when it was not sealed for this context by any secret of the keyring (or is not a sealed value). */
  open(sealed: string, context: string): string | null {
    const [version, iv, body, tag] = sealed.split('.');
    if (version !== VERSION || !iv || !body || !tag) return null;
    for (const secret of this.keyring.all) {
      try {
        const decipher = createDecipheriv('aes-256-gcm', keyOf(secret), Buffer.from(iv, 'base64url'));
        decipher.setAAD(Buffer.from(context));
        decipher.setAuthTag(Buffer.from(tag, 'base64url'));
        return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
      } catch {
        // sealed under another secret of the keyring, or not for this context: try the next
      }
    }
    return null;
  }
}

function keyOf(secret: string): Buffer {
  return createHash('sha256').update(secret).digest();
}
