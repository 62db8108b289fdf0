/** The parts of a submission an address is read from: its stored fields and its control fields. */
export interface AddressedFields {
  data: Record<string, unknown>;
  controls: Record<string, string>;
}

/** Who to reply to and send the autoresponder to: the first valid address, controls before fields. */
export function submitterAddress(parsed: AddressedFields): string | null {
  const { controls, data } = parsed;
  const candidates = [ownValue(controls, '_email.replyto'), ownValue(controls, '_replyto'), ownValue(data, 'email'), ownValue(data, 'mail')];
  for (const candidate of candidates) {
    // CR/LF is refused before trimming: it would otherwise be trimmed away from an injection attempt.
    if (typeof candidate !== 'string' || /[\r\n]/.test(candidate)) continue;
    const address = candidate.trim();
    if (isEmailAddress(address)) return address;
  }
  return null;
}

// ASCII only (no SMTPUTF8): the address goes into an SMTP envelope and a Reply-To header.
// Neither pattern can backtrack badly: the repeated groups are separated by a '.' that their class excludes.
const LOCAL_PART = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/;
const DOMAIN = /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;

function isEmailAddress(address: string): boolean {
  if (address.length > 254) return false;
  const at = address.lastIndexOf('@');
  const local = address.slice(0, at);
  return at > 0 && local.length <= 64 && LOCAL_PART.test(local) && DOMAIN.test(address.slice(at + 1));
}

function ownValue(target: Record<string, unknown>, key: string): unknown {
  return Object.hasOwn(target, key) ? target[key] : undefined;
}
