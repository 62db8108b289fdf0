import { randomBytes } from 'node:crypto';

/** What a ceremony is for: a new passkey, signing in with one alone, the second step of a sign-in, or confirming it is you. */
export type CeremonyPurpose = 'register' | 'sign-in' | 'second-factor' | 'confirm';
const PURPOSES: readonly CeremonyPurpose[] = ['register', 'sign-in', 'second-factor', 'confirm'];

/**
 * One WebAuthn ceremony: its challenge, what it is for, the account it is for (null: a sign-in,
 * whoever's passkey answers), and until when it may be answered. The dashboard keeps it in a signed
 * cookie of the browser that started it; passkey_challenges keeps each answered one.
 */
export interface Ceremony {
  challenge: string;
  purpose: CeremonyPurpose;
  userId: string | null;
  expiresAt: number;
}

/** A ceremony may be answered this long after it started: the browser's prompt waits 2 minutes, a slow person retries. */
export const CEREMONY_MS = 5 * 60_000;
const CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

export function newCeremony(purpose: CeremonyPurpose, userId: string | null, now: number): Ceremony {
  return { challenge: randomBytes(32).toString('base64url'), purpose, userId, expiresAt: now + CEREMONY_MS };
}

/** A ceremony read back from its (signature-checked) cookie text; null when it is not one. */
export function parseCeremony(text: string): Ceremony | null {
  try {
    const value = JSON.parse(text) as Partial<Ceremony>;
    if (typeof value.challenge !== 'string' || !CHALLENGE.test(value.challenge)) return null;
    if (!PURPOSES.includes(value.purpose as CeremonyPurpose)) return null;
    if (value.userId !== null && typeof value.userId !== 'string') return null;
    if (typeof value.expiresAt !== 'number') return null;
    return { challenge: value.challenge, purpose: value.purpose as CeremonyPurpose, userId: value.userId, expiresAt: value.expiresAt };
  } catch {
    return null;
  }
}
