import { CompiledQuery, type Compilable } from 'kysely';
import type { Queryable } from './database.js';

// What a parameter stands for until it is given: unique objects, never mistaken for a real value.
class Placeholder {
  constructor(readonly name: string) {}
}

// The text of every PreparedQuery, with the name its statement is prepared under on PostgreSQL.
const statementNames = new Map<string, string>();

/**
 * The name to prepare `sql` under on a PostgreSQL connection, when it is a PreparedQuery's; each
 * connection then parses and plans it once (database.ts), not at every run.
 */
export function statementNameOf(sql: string): string | undefined {
  return statementNames.get(sql);
}

/** Has `sql`, a statement run often with new parameters, prepared once per PostgreSQL connection, as a PreparedQuery's is. */
export function nameStatement(sql: string): void {
  if (!statementNames.has(sql)) statementNames.set(sql, `formgate_${statementNames.size + 1}`);
}

/**
 * A query built with Kysely once and then run many times with new parameters. Building a query
 * costs about 50 µs, several times what SQLite takes to run a lookup by key, so the few lookups made
 * on every request (the intake form, the token) are built once. On PostgreSQL each connection also
 * prepares it once: planning the intake form's join cost the server ~280 µs at every run, running
 * the prepared statement ~60 µs. SQLite's statements are kept by their text already (database.ts).
 * `build` receives placeholders in place of the parameters: use them only as values (in `where`,
 * `set`, `values`), never in logic. Name the columns it selects rather than `*`: PostgreSQL refuses
 * to run a prepared statement whose result gained a column (a newer instance's migration).
 */
export class PreparedQuery<Params extends Record<string, unknown>, Row> {
  // NOTE: compiled on first use, for the dialect of the database it first runs on; keep one
  // instance per Database (services make theirs in their constructor).
  private compiled: { sql: string; slots: unknown[] } | null = null;

  constructor(private readonly build: (db: Queryable, params: Params) => Compilable<Row>) {}

  async execute(db: Queryable, params: Params): Promise<Row[]> {
    let query = this.compiled;
    if (!query) {
      const placeholders = new Proxy({} as Params, { get: (_, name) => new Placeholder(String(name)) });
      const compiled = this.build(db, placeholders).compile();
      query = this.compiled = { sql: compiled.sql, slots: [...compiled.parameters] };
      nameStatement(query.sql);
    }
    const parameters = query.slots.map((slot) => (slot instanceof Placeholder ? params[slot.name] : slot));
    const result = await db.executeQuery<Row>(CompiledQuery.raw(query.sql, parameters));
    return result.rows;
  }

  async executeTakeFirst(db: Queryable, params: Params): Promise<Row | undefined> {
    return (await this.execute(db, params))[0];
  }
}
