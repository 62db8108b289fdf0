import { randomBytes, scrypt as scryptCallback, timingSafeEqual, type ScryptOptions } from 'node:crypto';

// OWASP's password storage cheat sheet lists N=2^14, r=8, p=5 among its equivalent scrypt settings:
// 16 MiB per hash (2^17 with p=1 would take 128 MiB and ~650 ms here for the same strength).
const COST = { N: 2 ** 14, r: 8, p: 5 } as const;
// Passwords stored before the dashboard used Node's defaults; they still verify, and are rehashed at the next login.
const LEGACY_COST = { N: 2 ** 14, r: 8, p: 1 } as const;
const KEY_LENGTH = 32;
const MAX_MEMORY = 64 * 1024 * 1024;
export const PASSWORD_MIN = 8;
// scrypt reads the whole password first; a bound keeps a pasted novel from costing anything.
export const PASSWORD_MAX = 1024;

function scrypt(password: string, salt: Buffer, cost: { N: number; r: number; p: number }): Promise<Buffer> {
  const options: ScryptOptions = { ...cost, maxmem: MAX_MEMORY };
  return new Promise((resolve, reject) => scryptCallback(password.normalize('NFC'), salt, KEY_LENGTH, options, (e, key) => (e ? reject(e) : resolve(key))));
}

/** What is wrong with a new password, as `password: …`, or null when it is acceptable. */
export function passwordProblem(password: string, field = 'password'): string | null {
  if ([...password].length < PASSWORD_MIN) return `${field}: must be at least ${PASSWORD_MIN} characters`;
  if (password.length > PASSWORD_MAX) return `${field}: must be at most ${PASSWORD_MAX} characters`;
  return null;
}

/** `scrypt$N=…,r=…,p=…$salt$key`, salted per password. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scrypt(password, salt, COST);
  return `scrypt$N=${COST.N},r=${COST.r},p=${COST.p}$${salt.toString('base64url')}$${key.toString('base64url')}`;
}

interface StoredHash {
  cost: { N: number; r: number; p: number };
  salt: Buffer;
  key: Buffer;
}

function parseStored(stored: string): StoredHash | null {
  const parts = stored.split('$');
  if (parts[0] !== 'scrypt') return null;
  if (parts.length === 3) return { cost: LEGACY_COST, salt: Buffer.from(parts[1]!, 'base64url'), key: Buffer.from(parts[2]!, 'base64url') };
  const match = /^N=(\d+),r=(\d+),p=(\d+)$/.exec(parts[1] ?? '');
  if (parts.length !== 4 || !match) return null;
  return {
    cost: { N: Number(match[1]), r: Number(match[2]), p: Number(match[3]) },
    salt: Buffer.from(parts[2]!, 'base64url'),
    key: Buffer.from(parts[3]!, 'base64url'),
  };
}

// Verified against when there is no account, so an unknown address costs what a wrong password does.
let decoy: Promise<string> | null = null;

/**
 * Whether the password matches the stored hash, compared in constant time. With no stored hash
 * (no such account, or one made without a password) a decoy is verified, so the answer takes as long.
 */
export async function verifyPassword(password: string, stored: string | null): Promise<boolean> {
  decoy ??= hashPassword(randomBytes(16).toString('base64url'));
  const parsed = parseStored(stored ?? (await decoy));
  if (!parsed || password.length > PASSWORD_MAX) return false;
  const key = await scrypt(password, parsed.salt, parsed.cost);
  return key.length === parsed.key.length && timingSafeEqual(key, parsed.key) && stored !== null;
}

/** Stored with weaker settings than today's: hashed again at the next successful login. */
export function needsRehash(stored: string): boolean {
  const parsed = parseStored(stored);
  return !parsed || parsed.cost.N !== COST.N || parsed.cost.r !== COST.r || parsed.cost.p !== COST.p;
}
