import { createHash } from 'node:crypto';
import type { PasskeyRow } from '../db/schema/session.js';

/** A passkey as the account's pages show it; `ref` names it in addresses (never the credential id). */
export interface Passkey {
  ref: string;
  name: string;
  createdAt: number;
  lastUsedAt: number | null;
  /** The authenticator says it is backed up (synced to the person's other devices). */
  backedUp: boolean;
}

/** A short, stable name of a credential for addresses and logs: credential ids can be hundreds of characters. */
export function refOf(credentialId: string): string {
  return createHash('sha256').update(credentialId).digest('base64url').slice(0, 16);
}

/** A stored passkey as pages show it. */
export function toPasskey(row: PasskeyRow): Passkey {
  return { ref: refOf(row.id), name: row.name, createdAt: row.createdAt, lastUsedAt: row.lastUsedAt, backedUp: row.backedUp === 1 };
}

/** The transports the authenticator named (usb, internal, hybrid…), for the browser's hints; undefined when none. */
export function transportsOf(row: PasskeyRow): string[] | undefined {
  if (!row.transports) return undefined;
  try {
    const list = JSON.parse(row.transports) as unknown;
    return Array.isArray(list) ? list.filter((t): t is string => typeof t === 'string') : undefined;
  } catch {
    return undefined;
  }
}
