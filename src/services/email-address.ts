/**
 * Lower-cased and trimmed: one account, one member, one confirmed recipient per address whatever
 * its spelling. A leaf: the notification channel reads it below the services that enqueue jobs.
 */
export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}
