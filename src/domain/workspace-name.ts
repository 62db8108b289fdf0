/**
 * The name a new workspace is offered (issue 41, item 17): never "My workspace", which reads oddly in
 * an invitation to someone else. Only a suggestion: the person sees it in a field and can change it.
 */

/** The name offered when nothing better is known (an installation at an IP address, on localhost). */
export const FALLBACK_WORKSPACE_NAME = 'Our team';

// Addresses at these domains say nothing of an organisation: the person's own name is offered instead.
const PERSONAL_MAIL_DOMAINS = new Set([
  'aol.com',
  'fastmail.com',
  'gmail.com',
  'gmx.de',
  'gmx.net',
  'googlemail.com',
  'hey.com',
  'hotmail.com',
  'icloud.com',
  'live.com',
  'mail.com',
  'mail.ru',
  'me.com',
  'outlook.com',
  'pm.me',
  'proton.me',
  'protonmail.com',
  'web.de',
  'yahoo.com',
  'yandex.ru',
]);

// Second-level labels under a country's code that name no organisation: acme.co.uk is "Acme".
const GENERIC_SECOND_LEVEL = new Set(['ac', 'co', 'com', 'edu', 'gov', 'ltd', 'net', 'org']);

function capitalise(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}

/** "forms.acme.co.uk" → "Acme"; null for an address, localhost or a name of one label. */
export function organisationOf(host: string): string | null {
  const name = host.toLowerCase().replace(/\.$/, '');
  if (name === '' || /^[\d.]+$/.test(name) || name.includes(':') || name === 'localhost' || name.endsWith('.localhost')) return null;
  const labels = name.split('.');
  if (labels.length < 2) return null;
  const country = labels.length >= 3 && labels.at(-1)!.length === 2 && GENERIC_SECOND_LEVEL.has(labels.at(-2)!);
  const label = country ? labels.at(-3)! : labels.at(-2)!;
  return label === '' ? null : capitalise(label);
}

/** The setup page's offer: the organisation of the installation's address, else FALLBACK_WORKSPACE_NAME. */
export function workspaceNameForHost(host: string): string {
  return organisationOf(host) ?? FALLBACK_WORKSPACE_NAME;
}

/** A sign-up's offer: "Acme" for ann@acme.com, "Ann Smith’s workspace" for ann.smith@gmail.com. */
export function workspaceNameForEmail(email: string): string {
  const at = email.lastIndexOf('@');
  const domain = email.slice(at + 1).toLowerCase();
  if (at > 0 && !PERSONAL_MAIL_DOMAINS.has(domain)) {
    const organisation = organisationOf(domain);
    if (organisation) return organisation.slice(0, 128);
  }
  const person = email
    .slice(0, Math.max(0, at))
    .split('+')[0]!
    .split(/[._-]+/)
    .filter(Boolean)
    .map(capitalise)
    .join(' ');
  return person ? `${person.slice(0, 100)}’s workspace` : FALLBACK_WORKSPACE_NAME;
}
