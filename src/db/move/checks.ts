// The refusals of `formgate move` that look at the databases: each is made before anything is written.
import { sql } from 'kysely';
import type { Database } from '../database.js';
import { waitForDatabase } from '../startup-wait.js';
import { migrationNames } from '../migrations/index.js';
import { NewerSchemaError } from '../migrations/newer-schema.js';
import { MoveRefusedError } from './refusal.js';

/**
 * The SQLite database must hold exactly this program's schema: an older one is migrated first (by
 * this program, which the operator runs: the move never changes its source), a newer one is refused
 * as every command refuses it.
 */
export async function checkSourceSchema(source: Database, sourceName: string): Promise<void> {
  const { rows: exists } = await sql<{ n: number }>`SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name = 'kysely_migration'`.execute(
    source.db,
  );
  const applied =
    Number(exists[0]?.n ?? 0) === 0
      ? []
      : (await sql<{ name: string }>`SELECT name FROM kysely_migration ORDER BY name`.execute(source.db)).rows.map((r) => r.name);
  const known = migrationNames();
  if (applied.length === 0) {
    throw new MoveRefusedError(
      `the database ${sourceName} holds no Formgate data (no migration was ever applied to it): nothing to move. Check FORMGATE_DATABASE_URL (or run the command where formgate serve runs).`,
    );
  }
  const unknown = applied.filter((name) => !known.includes(name));
  if (unknown.length > 0) throw new NewerSchemaError(unknown, known.at(-1)!, sourceName);
  const missing = known.filter((name) => !applied.includes(name));
  if (missing.length > 0) {
    throw new MoveRefusedError(
      `the database ${sourceName} has an older schema than this program's: it lacks migration(s) ${missing.join(', ')}. ` +
        'Bring it up to date first with this version (`formgate migrate`, or start `formgate serve` once and stop it), then run the move again.',
    );
  }
}

/**
 * The target must be empty: no table holding a row (Formgate's schema, already migrated, may be
 * there empty: a move that failed leaves it so) and no table of another program.
 */
export async function checkTargetEmpty(target: Database, targetName: string): Promise<void> {
  const db = target.db.withoutPlugins();
  const { rows } = await sql<{
    name: string;
  }>`SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name`.execute(
    db,
  );
  const tables = rows.map((r) => r.name);
  if (tables.length === 0) return;
  const holdingRows: string[] = [];
  for (const table of tables) {
    if (table.startsWith('kysely_migration')) continue;
    const { rows: any } = await sql<{ some: boolean }>`SELECT EXISTS (SELECT 1 FROM ${sql.table(table)}) AS some`.execute(db);
    if (any[0]?.some) holdingRows.push(table);
  }
  if (holdingRows.length > 0) {
    throw new MoveRefusedError(
      `the target database ${targetName} is not empty: ${holdingRows.length} table(s) hold rows (${holdingRows.join(', ')}). ` +
        'The move copies into an empty database only, so that nothing there is mixed with or overwritten by the copy: create a new one (`createdb formgate`) and give its URL, or empty this one yourself if nothing in it is needed.',
      holdingRows,
    );
  }
  if (!tables.includes('kysely_migration')) {
    throw new MoveRefusedError(
      `the target database ${targetName} holds tables that are not Formgate's (${tables.join(', ')}): give the URL of a new, empty database (\`createdb formgate\`).`,
      tables,
    );
  }
}

/** The target must answer (once, within 10 s: the operator is there to try again). */
export async function checkTargetReachable(target: Database, url: string, targetName: string): Promise<void> {
  try {
    await waitForDatabase(target, { dialect: 'postgres', url }, 0, { info: () => undefined });
  } catch (error) {
    throw new MoveRefusedError(`${(error as Error).message}. Check --to: the server, the user and password, and that the database ${targetName} exists.`);
  }
}
