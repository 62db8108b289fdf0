import type { Compilable } from 'kysely';
import type { Queryable } from './database.js';
import { PreparedQuery } from './prepared-query.js';

/**
 * A PreparedQuery whose parameters include a list of ids (`in (…)`): the list is padded to the next
 * power of two with a value no row holds, so a page's lists of 1 to 64 ids make at most seven
 * statements, each built once and prepared once per PostgreSQL connection, instead of a new one
 * built (and planned) at every run. `build` receives the ids as placeholders: use them as values only.
 */
export class PreparedListQuery<Params extends Record<string, unknown>, Row, Id = string> {
  private readonly bySize = new Map<number, PreparedQuery<Record<string, unknown>, Row>>();

  constructor(
    private readonly build: (db: Queryable, params: Params, ids: readonly Id[]) => Compilable<Row>,
    /** What fills the list's unused slots: a value that matches no row (an empty id). */
    private readonly padding: Id = '' as Id,
  ) {}

  execute(db: Queryable, params: Params, ids: readonly Id[]): Promise<Row[]> {
    const size = 2 ** Math.ceil(Math.log2(Math.max(1, ids.length)));
    const values: Record<string, unknown> = { ...params };
    for (let i = 0; i < size; i++) values[`id${i}`] = i < ids.length ? ids[i] : this.padding;
    return this.querySized(size).execute(db, values);
  }

  private querySized(size: number): PreparedQuery<Record<string, unknown>, Row> {
    let query = this.bySize.get(size);
    if (!query) {
      query = new PreparedQuery((db, slots) =>
        this.build(
          db,
          slots as Params,
          Array.from({ length: size }, (_, i) => slots[`id${i}`] as Id),
        ),
      );
      this.bySize.set(size, query);
    }
    return query;
  }
}
