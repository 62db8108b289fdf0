import type { SelectQueryBuilder } from 'kysely';

/** A keyset position: the (createdAt, id) of the last row of the previous page. */
export interface Keyset {
  createdAt: number;
  id: string;
}

export interface PageRequest {
  limit: number;
  after: Keyset | null;
}

export interface Page<Row> {
  rows: Row[];
  hasMore: boolean;
  /**
   * Where the next page starts when that is not just after the last row: a search page that
   * checked its share of the list without filling up (services/submissions.ts) may hold fewer rows
   * than asked, even none, and the next page continues after the last row it checked.
   */
  next?: Keyset;
}

/** Where the page after `page` starts, or null when it is the last. */
export function nextOf<Row extends Keyset>(page: Page<Row>): Keyset | null {
  if (!page.hasMore) return null;
  const last = page.rows[page.rows.length - 1];
  const next = page.next ?? last;
  return next ? { createdAt: next.createdAt, id: next.id } : null;
}

/**
 * Newest first, ties broken by id, continuing after `after`: a keyset page that costs the same at
 * any depth (no OFFSET). `table` qualifies the columns when the query joins.
 */
export async function keysetPage<DB, TB extends keyof DB, Row extends Keyset>(
  query: SelectQueryBuilder<DB, TB, Row>,
  request: PageRequest,
  table: string,
): Promise<Page<Row>> {
  return pageOf(
    await newestAfter(query, request.after, table)
      .limit(request.limit + 1)
      .execute(),
    request.limit,
  );
}

/** A page from the `limit + 1` rows fetched for it: the extra row only says there is more. */
/** A prepared page query's parameters for `page`: one more row than asked (to know whether more follow), after its cursor or from the newest. */
export function pageParams(page: PageRequest): { limit: number; createdAt: number; id: string } {
  return { limit: page.limit + 1, createdAt: page.after?.createdAt ?? 0, id: page.after?.id ?? '' };
}

export function pageOf<Row>(rows: Row[], limit: number): Page<Row> {
  const hasMore = rows.length > limit;
  if (hasMore) rows.pop();
  return { rows, hasMore };
}

/** Any tables: `table` names the columns at run time, so the query is ordered by them untyped. */
type Tables = Record<string, Record<string, unknown>>;

/** The keyset order (newest first, ties by id) from just after `after`, without a limit. */
export function newestAfter<DB, TB extends keyof DB, Row>(
  query: SelectQueryBuilder<DB, TB, Row>,
  after: Keyset | null,
  table: string,
): SelectQueryBuilder<DB, TB, Row> {
  const createdAt = `${table}.createdAt`;
  const id = `${table}.id`;
  let q = query as SelectQueryBuilder<Tables, string, Row>;
  if (after) {
    // NOTE: a row-value comparison, not `a < t OR (a = t AND id < x)`: with bound parameters SQLite
    // uses the OR form only for the (form, status) prefix of the index and scans every newer row.
    q = q.where((eb) => eb(eb.refTuple(createdAt, id), '<', eb.tuple(after.createdAt, after.id)));
  }
  return q.orderBy(createdAt, 'desc').orderBy(id, 'desc') as SelectQueryBuilder<DB, TB, Row>;
}
