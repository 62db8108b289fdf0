import { DAY_MS } from '../domain/time.js';
import type { SubmissionFilter } from '../services/submission-search.js';
import type { FieldErrors } from './field-errors.js';

/** What the inbox's filter form sends, as typed: kept in the address bar and shown back in the form. */
export interface FilterValues {
  search: string;
  from: string;
  to: string;
}

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;
// as the API's `search` (src/schemas/submission.ts)
const SEARCH_MAX = 256;

/** The start (epoch ms, UTC) of a `YYYY-MM-DD` day, or null when it is not a real day. */
function dayStart(value: string): number | null {
  const match = DAY.exec(value);
  if (!match) return null;
  const ms = Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]));
  // Date.UTC rolls 2026-02-30 over into March: a real day reads back the same
  return new Date(ms).toISOString().startsWith(value) ? ms : null;
}

/**
 * The inbox's and export's filter from a query string: `search`, and `from` / `to` as UTC days, both
 * inclusive (`to` becomes the start of the next day, exclusive). A bad value is a message beside its
 * field, and nothing is filtered by it.
 */
export function readFilter(query: Record<string, unknown>): { values: FilterValues; filter: SubmissionFilter; errors: FieldErrors } {
  const text = (name: string) => (typeof query[name] === 'string' ? (query[name] as string).trim() : '');
  const values = { search: text('search'), from: text('from'), to: text('to') };
  const filter: SubmissionFilter = {};
  const errors: FieldErrors = {};
  if ([...values.search].length > SEARCH_MAX) errors.search = `Must be at most ${SEARCH_MAX} characters.`;
  else if (values.search) filter.search = values.search;
  if (values.from) {
    const from = dayStart(values.from);
    if (from === null) errors.from = 'Must be a date written YYYY-MM-DD, such as 2026-11-24.';
    else filter.from = from;
  }
  if (values.to) {
    const to = dayStart(values.to);
    if (to === null) errors.to = 'Must be a date written YYYY-MM-DD, such as 2026-11-24.';
    else filter.to = to + DAY_MS;
  }
  if (filter.from !== undefined && filter.to !== undefined && filter.from >= filter.to) {
    errors.to = 'Must be the same day as From or later.';
    delete filter.to;
  }
  return { values, filter, errors };
}

/** The filter as a query string (`search=…&from=…&to=…`, only the ones set), for links that keep it. */
export function filterQuery(values: FilterValues): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(values)) if (value) params.set(name, value);
  return params.toString();
}
