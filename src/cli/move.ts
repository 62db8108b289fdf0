// `formgate move --to postgres://…`: the SQLite installation copied into an empty PostgreSQL database,
// with a dry run, a confirmation, a progress bar and a verification (db/move/ does the work).
import { createInterface } from 'node:readline/promises';
import type { Config } from '../config/config.js';
import { Database, describeDatabase } from '../db/database.js';
import { type MovePlan, type MoveResult, moveToPostgres, openMoveSource } from '../db/move/move.js';
import { MoveRefusedError } from '../db/move/refusal.js';
import { startProgress } from './progress.js';

export interface MoveOptions {
  to: string;
  dryRun?: boolean;
  yes?: boolean;
  json?: boolean;
}

/** Exit codes: 0 moved and verified (or a dry run), 1 the copy failed or does not verify, 2 refused (nothing written). */
export async function move(config: Config, opts: MoveOptions): Promise<number> {
  const out = (line = '') => {
    if (!opts.json) process.stdout.write(`${line}\n`);
  };
  const err = (line: string) => process.stderr.write(`formgate: ${line}\n`);
  try {
    const targetUrl = checkTargetUrl(opts.to);
    if (config.database.dialect !== 'sqlite') {
      throw new MoveRefusedError(
        `the configured database (FORMGATE_DATABASE_URL) is already PostgreSQL: ${describeDatabase(config.database)}. ` +
          'formgate move copies an SQLite installation into PostgreSQL: run it with the environment Formgate ran with on SQLite (FORMGATE_DATABASE_URL unset or sqlite:…). ' +
          'To copy one PostgreSQL database into another, use pg_dump and pg_restore.',
      );
    }
    if (config.database.file === ':memory:') throw new MoveRefusedError('the configured database is in memory: there is nothing to move.');
    const names = { source: describeDatabase(config.database), target: describeDatabase({ dialect: 'postgres', url: targetUrl }), targetUrl };
    let planned: MovePlan | null = null;
    const result = await withDatabases(config, targetUrl, (source, target) =>
      moveToPostgres(source, target, names, {
        planned: async (plan) => {
          planned = plan;
          printPlan(out, names, plan);
          if (opts.dryRun) return false;
          if (!opts.yes) await confirm(names.target, plan);
          return true;
        },
        meter: (label, total) => startProgress(label, total, { quiet: opts.json }),
        log: (message) => err(message),
      }),
    );
    if (result === null) {
      out('Dry run: nothing was changed. Run it again without --dry-run to copy.');
      if (opts.json) process.stdout.write(`${JSON.stringify({ source: names.source, target: names.target, dryRun: true, plan: planned })}\n`);
      return 0;
    }
    printResult(out, result);
    const code = result.verified && !result.sourceChanged ? 0 : 1;
    if (code === 0) {
      out();
      out('Start Formgate on the new database (every instance, with the same environment as before otherwise):');
      out(`  FORMGATE_DATABASE_URL=${targetUrl}`);
      // the default folder of uploads follows the SQLite file; on PostgreSQL it would be FORMGATE_DATA_DIR's
      if (config.files.kind === 'folder') out(`  FORMGATE_FILES=${config.files.folder}   (uploaded files stay in this folder)`);
      out('Running several instances: give each one also FORMGATE_REDIS_URL=redis://… (one Redis for all), so rate limits are counted together.');
      out(`The SQLite file ${names.source.replace(/^sqlite:/, '')} is no longer read: keep it, stopped, as a backup until you are satisfied.`);
    }
    if (opts.json) {
      const start =
        code === 0 ? { FORMGATE_DATABASE_URL: targetUrl, ...(config.files.kind === 'folder' ? { FORMGATE_FILES: config.files.folder } : {}) } : null;
      process.stdout.write(`${JSON.stringify({ source: names.source, target: names.target, dryRun: false, plan: planned, ...result, start })}\n`);
    }
    return code;
  } catch (error) {
    if (!(error instanceof MoveRefusedError)) throw error;
    if (opts.json) process.stdout.write(`${JSON.stringify({ error: { code: 'move_refused', message: error.message, errors: error.details } })}\n`);
    else err(`move refused: ${error.message}${error.message.endsWith(':') ? `\n  ${error.details.join('\n  ')}` : ''}`);
    return 2;
  }
}

/** A PostgreSQL URL with a host, or the refusal. */
function checkTargetUrl(value: string): string {
  let url: URL | null = null;
  try {
    url = new URL(value.trim());
  } catch {}
  if (!url || (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') || url.hostname === '') {
    throw new MoveRefusedError(
      `--to must be the URL of a PostgreSQL database, such as postgres://formgate:password@127.0.0.1:5432/formgate, got "${value.replace(/:[^:@/]*@/, ':***@')}"`,
    );
  }
  return value.trim();
}

/** Opens the SQLite source (which must exist) and the target, runs `fn`, closes both. */
async function withDatabases<T>(config: Config, targetUrl: string, fn: (source: Database, target: Database) => Promise<T>): Promise<T> {
  const source = openMoveSource(config.database);
  const target = Database.open({ dialect: 'postgres', url: targetUrl });
  try {
    return await fn(source, target);
  } finally {
    await source.destroy();
    await target.destroy();
  }
}

function printPlan(out: (line?: string) => void, names: { source: string; target: string }, plan: MovePlan): void {
  out(`Move from ${names.source}`);
  out(`       to ${names.target}`);
  out();
  out(`Would copy ${plan.rows} row(s) in ${plan.tables.length} tables, in this order:`);
  const width = Math.max(...plan.tables.map((t) => t.name.length), 5);
  for (const table of plan.tables) out(`  ${table.name.padEnd(width)}  ${String(table.rows).padStart(10)}`);
  out('Left out (PostgreSQL keeps these otherwise, or has its own):');
  for (const table of plan.skipped) out(`  ${table.name}: ${table.reason}`);
  out();
}

/** On a terminal, asks; elsewhere --yes must have been given (a script does not start a move by accident). */
async function confirm(targetName: string, plan: MovePlan): Promise<void> {
  if (!process.stdin.isTTY || !process.stderr.isTTY) {
    throw new MoveRefusedError(
      'not on a terminal, so nobody can confirm: nothing was copied. Run it again with --yes to copy (--dry-run only shows the plan).',
    );
  }
  const prompt = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = await prompt.question(`Copy ${plan.rows} row(s) into ${targetName}? Formgate must be stopped meanwhile. Type yes to go on: `);
    if (answer.trim().toLowerCase() !== 'yes') throw new MoveRefusedError('not confirmed: nothing was copied.');
  } finally {
    prompt.close();
  }
}

function printResult(out: (line?: string) => void, result: MoveResult): void {
  const width = Math.max(...result.tables.map((t) => t.name.length), 5);
  out(`Copied ${result.rows} row(s) in ${(result.copyMs / 1000).toFixed(1)} s; read back from PostgreSQL in ${(result.verifyMs / 1000).toFixed(1)} s:`);
  out(`  ${'table'.padEnd(width)}  ${'SQLite'.padStart(10)}  ${'PostgreSQL'.padStart(10)}  checksum (SQLite / PostgreSQL)`);
  for (const t of result.tables) {
    const sums = t.sourceChecksum === t.targetChecksum ? t.sourceChecksum : `${t.sourceChecksum} / ${t.targetChecksum}`;
    out(`  ${t.name.padEnd(width)}  ${String(t.sourceRows).padStart(10)}  ${String(t.targetRows).padStart(10)}  ${sums}  ${t.match ? 'ok' : 'MISMATCH'}`);
  }
  const differing = result.tables.filter((t) => !t.match);
  if (differing.length > 0) {
    out();
    out(
      `Verification FAILED: ${differing.map((t) => t.name).join(', ')} differ(s) between the two databases. Do not start Formgate on the new database; ` +
        'keep running on SQLite, and report this with the table above.',
    );
  } else out('Every table verified: the same rows and checksums on both sides.');
  if (result.sourceChanged) {
    out();
    out(
      'The SQLite database CHANGED while it was copied: Formgate (or something else) was writing to it, and what it wrote after the copy began is not on PostgreSQL. ' +
        'Stop every Formgate instance, empty the new database (drop and create it again), and run the move again.',
    );
  }
}
