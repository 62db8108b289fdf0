import type { NotSpamOutcome } from '../services/quarantine.js';

const count = (n: number) => (n === 1 ? '1 submission' : `${n.toLocaleString('en-US')} submissions`);

/**
 * What the spam folder's bulk Not spam says: for one, the single Not spam's own words
 * (routes/submission.ts); for several, the same three outcomes counted, and those someone else
 * moved or deleted meanwhile.
 */
export function notSpamFlash({ moved, gone }: { moved: NotSpamOutcome[]; gone: number }): string {
  const returned = moved.filter((m) => m.returned).length;
  const held = moved.filter((m) => !m.returned && m.status === 'held').length;
  const delivered = moved.length - returned - held;
  if (moved.length === 1 && gone === 0) {
    if (returned === 1) return 'Moved back to the inbox; its deliveries were made when it first came and are not sent again';
    return delivered === 1 ? 'Moved to the inbox; its deliveries are on their way' : 'Moved to the inbox, but held: the allowance is used';
  }
  const parts: string[] = [];
  if (delivered > 0) parts.push(`${count(delivered)} moved to the inbox; ${delivered === 1 ? 'its' : 'their'} deliveries are on their way`);
  if (returned > 0) {
    const one = returned === 1;
    parts.push(
      `${count(returned)} moved back to the inbox; ${one ? 'its' : 'their'} deliveries were made when ${one ? 'it' : 'they'} first came and are not sent again`,
    );
  }
  if (held > 0) parts.push(`${count(held)} moved to the inbox, but held: the allowance is used`);
  if (gone > 0) parts.push(`${count(gone)} ${gone === 1 ? 'was' : 'were'} no longer in the spam folder`);
  return parts.length > 0 ? parts.join('. ') : 'Nothing changed';
}
