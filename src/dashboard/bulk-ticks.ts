import { safeNext } from './session.js';

/** A list's bulk post: the ticked ids, "select all on this page" with the page's ids, the action, and where it came from. */
export interface BulkTicks {
  id?: unknown;
  pageId?: unknown;
  all?: unknown;
  back?: unknown;
  action?: unknown;
}

/** A form sends one id as a string and several as an array; anything else is none. */
export function idsOf(value: unknown): string[] {
  const list = Array.isArray(value) ? value : [value];
  return list.filter((v): v is string => typeof v === 'string' && v !== '');
}

/**
 * What a bulk post of `list` (the inbox's, the spam folder's) asks: the ids (the page's too when
 * "select all" is ticked: it works without script) and the page to come back to, one of `list`'s
 * own (its filter and cursor), never elsewhere.
 */
export function bulkTicks(body: BulkTicks | undefined, list: string): { ids: string[]; back: string } {
  const asked = safeNext(body?.back);
  const back = asked === list || asked.startsWith(`${list}?`) ? asked : list;
  const ids = body?.all === '1' ? [...new Set([...idsOf(body?.id), ...idsOf(body?.pageId)])] : idsOf(body?.id);
  return { ids, back };
}
