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
  const createdAt = `${table}.createdAt`;
  const id = `${table}.id`;
  let q = query as SelectQueryBuilder<any, any, Row>;
  if (request.after) {
    const { createdAt: t, id: lastId } = request.after;
    q = q.where((eb) => eb.or([eb(createdAt, '<', t), eb.and([eb(createdAt, '=', t), eb(id, '<', lastId)])]));
  }
  const rows = await q.orderBy(createdAt, 'desc').orderBy(id, 'desc').limit(request.limit + 1).execute();
  const hasMore = rows.length > request.limit;
  if (hasMore) rows.pop();
  return { rows, hasMore };
}
