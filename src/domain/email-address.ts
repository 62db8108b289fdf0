/**
 * Lower-cased and trimmed: one account, one member, one confirmed recipient per address whatever
 * its spelling. A leaf: services and the notification channel below them both read it.
 */
export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}
