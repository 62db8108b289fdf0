import { Keyring } from '../keyring.js';
import { normaliseEmail } from '../domain/email-address.js';

/** How long an emailed sign-up link works. */
export const SIGNUP_LINK_LIFETIME_MS = 24 * 60 * 60_000;
// NOTE: part of what is signed, so a signature made for another purpose (a cursor) never passes here.
const PURPOSE = 'signup/1';
// payload (expiry and address, base64url), a dot, the full HMAC-SHA256 (43 characters)
const TOKEN_SYNTAX = /^([A-Za-z0-9_-]{8,400})\.([A-Za-z0-9_-]{43})$/;
const PAYLOAD_SYNTAX = /^(\d{1,16})\.(\S{3,254})$/;

/** What a well-signed link says: the address it proves, and until when. */
export interface SignupClaim {
  email: string;
  expiresAt: number;
}

/**
 * Sign-up links without a table: the token carries the address and its expiry, signed with the
 * installation's secret, so only an email this installation sent to that address holds one. It
 * stops working once an account has the address (the caller checks), or when it expires.
 */
export class SignupLinks {
  private readonly keyring: Keyring;

  constructor(
    secret: Keyring | string,
    private readonly now: () => number = Date.now,
    private readonly lifetimeMs = SIGNUP_LINK_LIFETIME_MS,
  ) {
    this.keyring = typeof secret === 'string' ? new Keyring(secret) : secret;
  }

  /** A token for the address, working for the link's lifetime from now. */
  issue(email: string): string {
    const payload = Buffer.from(`${this.now() + this.lifetimeMs}.${normaliseEmail(email)}`).toString('base64url');
    return `${payload}.${this.keyring.sign(`${PURPOSE}\n${payload}`)}`;
  }

  /** The claim of a token this installation issued and that has not expired; null for anything else. */
  read(token: string): SignupClaim | null {
    // NOTE: Node's base64url decoder skips characters it does not know, so the syntax is checked first.
    const parts = TOKEN_SYNTAX.exec(token);
    if (!parts) return null;
    const payload = parts[1]!;
    // the text is compared, not its decoding: base64url's last character has bits a decoder ignores
    if (!this.keyring.verify(`${PURPOSE}\n${payload}`, parts[2]!)) return null;
    const claim = PAYLOAD_SYNTAX.exec(Buffer.from(payload, 'base64url').toString());
    if (!claim) return null;
    const expiresAt = Number(claim[1]);
    if (expiresAt <= this.now()) return null;
    return { email: claim[2]!, expiresAt };
  }
}
