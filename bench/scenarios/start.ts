import { freshDatabase, type BenchDialect } from '../lib/databases.js';
import { withContext } from '../lib/fixtures.js';
import { startFormgate } from '../lib/formgate.js';

export interface StartResult {
  dialect: BenchDialect;
  /** Each start, from spawning `formgate serve` to its first answered request, in ms. */
  startsMs: number[];
  medianMs: number;
}

const STARTS = 5;

/** Starts `formgate serve` on an already migrated database a few times; the median is reported. */
export async function runStart(dialect: BenchDialect): Promise<StartResult> {
  const database = await freshDatabase(dialect, 'start');
  await withContext(database, async () => undefined);
  const startsMs: number[] = [];
  for (let i = 0; i < STARTS; i++) {
    const formgate = await startFormgate({ databaseUrl: database.url, dataDir: database.dataDir });
    startsMs.push(Math.round(formgate.startMs));
    await formgate.stop();
  }
  const sorted = [...startsMs].sort((a, b) => a - b);
  return { dialect, startsMs, medianMs: sorted[Math.floor(sorted.length / 2)]! };
}
