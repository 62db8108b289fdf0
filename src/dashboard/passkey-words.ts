import type { PasskeyRefusal } from '../services/passkeys.js';

/** What a page says when a passkey's answer is refused, by why (the same words on every page). */
export const PASSKEY_REFUSED: Record<PasskeyRefusal, string> = {
  expired: 'The passkey took too long to answer, or the page is old: try again.',
  replayed: 'That passkey answer was already used: try again.',
  unknown: 'That passkey is not one this installation knows for the account (it may have been removed here).',
  invalid: 'The passkey’s answer could not be verified: try again.',
  // NOTE: said plainly: the person holding the real key learns that a copy of it exists
  cloned: 'That passkey was refused: its use count went backwards, as a copied key’s would. Use another way in, and remove the passkey.',
};

/** Said when a ceremony form was posted without the browser's answer (script off). */
export const PASSKEY_NEEDS_SCRIPT = 'Passkeys need JavaScript in this browser: turn it on for this site and try again.';

/** The browser's answer, as the form's `response` field carries it (JSON text); null when there is none. */
export function answerOf(body: unknown): unknown {
  const text = (body as { response?: unknown } | undefined)?.response;
  if (typeof text !== 'string' || text === '') return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
