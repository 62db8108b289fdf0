/**
 * `npm run bench:intake [-- --drop-index a,b] [--count N]`: what one submission costs in-process on
 * SQLite, without HTTP or a load tool: the intake pipeline and the group-commit writer store N
 * submissions (default 20,000) in batches of 21 (a saturated server's batch) over 8 workspaces'
 * forms, each emailing and calling a webhook, as the submit scenario's do. Prints the process's CPU
 * per submission (user and system) and each SQL statement's time per submission. Far steadier than
 * the server's figures under load (a few percent between runs), so it tells what a schema or writer
 * change costs; `--drop-index` drops indexes first, to price each one (bench/README.md).
 */
import { parseArgs } from 'node:util';
import SqliteDatabase from 'better-sqlite3';
import { sql } from 'kysely';
import { fieldsFromPairs } from '../src/intake/fields.js';
import { freshDatabase, removeDatabases } from './lib/databases.js';
import { createAccount, createForm, intakePipeline, withContext } from './lib/fixtures.js';
import { sampleFields } from './lib/sample-data.js';

const { values } = parseArgs({ options: { 'drop-index': { type: 'string', default: '' }, count: { type: 'string', default: '20000' } } });
const COUNT = Number(values.count);
const BATCH = 21;
const FORMS = 8;

// Each statement's time, by its text: better-sqlite3 runs them synchronously, so the wall time of a call is its cost.
const statements = new Map<string, { calls: number; us: number }>();
let timing = false;
const statementClass = Object.getPrototypeOf(new SqliteDatabase(':memory:').prepare('select 1'));
for (const method of ['run', 'all', 'get']) {
  const original = statementClass[method];
  statementClass[method] = function timed(this: { source: string }, ...args: unknown[]) {
    if (!timing) return original.apply(this, args);
    const started = process.hrtime.bigint();
    try {
      return original.apply(this, args);
    } finally {
      const text = this.source.replace(/\s+/g, ' ').trim().slice(0, 100);
      const seen = statements.get(text) ?? { calls: 0, us: 0 };
      seen.calls++;
      seen.us += Number(process.hrtime.bigint() - started) / 1000;
      statements.set(text, seen);
    }
  };
}

const database = await freshDatabase('sqlite', `intake-${process.pid}`);
await withContext(database, async (ctx) => {
  const forms: string[] = [];
  for (let i = 0; i < FORMS; i++) {
    const account = await createAccount(ctx, `intake${i}@example.com`);
    forms.push(await createForm(ctx, account, { name: `Contact ${i}`, notificationEmails: [`owner${i}@example.com`], webhookUrl: 'http://127.0.0.1:9/hook' }));
  }
  for (const name of values['drop-index'].split(',').filter(Boolean)) await sql`DROP INDEX ${sql.id(name)}`.execute(ctx.database.db);
  const pipeline = intakePipeline(ctx);
  const submit = async (from: number, count: number) => {
    for (let start = from; start < from + count; start += BATCH) {
      const batch = Array.from({ length: Math.min(BATCH, from + count - start) }, (_, k) => {
        const i = start + k;
        // each from an address of its own, as the spam filter counts repeats per address
        return pipeline.receive(forms[i % FORMS]!, fieldsFromPairs(sampleFields(i)), `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`);
      });
      await Promise.all(batch);
    }
  };
  await submit(0, 3000); // warm-up: the code optimised, the tables past their first pages
  timing = true;
  const before = process.cpuUsage();
  await submit(1_000_000, COUNT);
  const spent = process.cpuUsage(before);
  timing = false;
  const per = (us: number) => (us / COUNT).toFixed(1).padStart(7);
  console.log(
    `CPU per submission: ${per(spent.user + spent.system)} µs (${per(spent.system).trim()} of it in the kernel), ${COUNT} submissions in batches of ${BATCH}`,
  );
  console.log('\n µs/sub   calls  statement');
  for (const [text, { calls, us }] of [...statements].sort((a, b) => b[1].us - a[1].us).slice(0, 12)) {
    console.log(`${per(us)} ${String(calls).padStart(7)}  ${text}`);
  }
});
await removeDatabases();
