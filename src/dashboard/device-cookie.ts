import type { FastifyReply, FastifyRequest } from 'fastify';
import { randomBytes } from 'node:crypto';
import { accountKey } from './login-limits.js';

/** A browser is known to an account for this long after its last login there. */
export const DEVICE_LIFETIME_MS = 180 * 24 * 60 * 60_000;
// One browser can be known to a few accounts (a person with two); the oldest drops off past these.
const ACCOUNTS_PER_BROWSER = 5;
const ENTRY = /^([0-9a-f]{32})\.([A-Za-z0-9_-]{22})\.(\d{1,12})$/;

interface Entry {
  account: string;
  nonce: string;
  issuedSeconds: number;
}

/**
 * OWASP's "device cookie": a signed cookie set when a login succeeds (or a reset link is used),
 * naming the accounts this browser has logged in to, each with a random nonce. The login limits
 * count a known browser's failures by its nonce, apart from everyone else's, so nobody can lock an
 * owner out of an account by failing logins for it from elsewhere. It grants nothing else: a copied
 * cookie gets its holder the same number of guesses as the browser it came from.
 */
export class DeviceCookies {
  readonly name: string;

  constructor(private readonly secure: boolean) {
    this.name = secure ? '__Host-fg_device' : 'fg_device';
  }

  /** The browser's nonce for the account with this address, or null when it has not logged in to it (or the cookie is not ours). */
  deviceFor(request: FastifyRequest, email: string): string | null {
    const account = accountKey(email);
    return this.entries(request).find((entry) => entry.account === account)?.nonce ?? null;
  }

  /** Marks the browser as known to the account, with a fresh nonce (so its count of failures starts anew). */
  remember(request: FastifyRequest, reply: FastifyReply, email: string): void {
    const account = accountKey(email);
    const fresh: Entry = { account, nonce: randomBytes(16).toString('base64url'), issuedSeconds: Math.floor(Date.now() / 1000) };
    const kept = [fresh, ...this.entries(request).filter((entry) => entry.account !== account)].slice(0, ACCOUNTS_PER_BROWSER);
    const value = kept.map((entry) => `${entry.account}.${entry.nonce}.${entry.issuedSeconds}`).join('~');
    reply.setCookie(this.name, value, {
      path: '/',
      httpOnly: true,
      sameSite: 'lax',
      secure: this.secure,
      signed: true,
      maxAge: Math.floor(DEVICE_LIFETIME_MS / 1000),
    });
  }

  /** The cookie's entries that are well formed and young enough; none when its signature does not hold. */
  private entries(request: FastifyRequest): Entry[] {
    const raw = request.cookies[this.name];
    if (!raw) return [];
    const unsigned = request.unsignCookie(raw);
    if (!unsigned.valid || unsigned.value === null) return [];
    const oldest = (Date.now() - DEVICE_LIFETIME_MS) / 1000;
    const entries: Entry[] = [];
    for (const part of unsigned.value.split('~').slice(0, ACCOUNTS_PER_BROWSER)) {
      const match = ENTRY.exec(part);
      if (match && Number(match[3]) > oldest) entries.push({ account: match[1]!, nonce: match[2]!, issuedSeconds: Number(match[3]) });
    }
    return entries;
  }
}
