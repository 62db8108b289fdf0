/**
 * The storage floor: the least any durable form backend does per request here, for scale beside
 * the bare baseline. A bare `node:http` server that
 * - `POST /<form>`: parses the urlencoded body, stores a row and two delivery jobs, group-committed
 *   as formgate does (one transaction in flight; SQLite in WAL with synchronous=FULL), and answers
 *   the same JSON as formgate once its batch has committed;
 * - `GET /forms/<form>/submissions?limit=25[&startingAfter=…]`: answers a keyset page of formgate's
 *   own `submissions` table, newest first, with the next cursor.
 * Nothing else: no authentication, validation, spam filter, search index, request log or deliveries.
 *
 * Argument: JSON `{ "dialect": "sqlite" | "postgres", "url": "sqlite:<file>" | "postgres://…" }`.
 * Prints `{"port":N}` once it listens.
 */
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import Sqlite from 'better-sqlite3';
import pg from 'pg';

interface Stored {
  id: string;
  formId: string;
  data: string;
}

interface ListRow {
  id: string;
  form_id: string;
  data: string;
  created_at: number;
}

interface Store {
  insert(batch: Stored[], now: number): Promise<void>;
  page(formId: string, after: [number, string] | null, limit: number): Promise<ListRow[]>;
}

const FLOOR_TABLES = [
  'CREATE TABLE IF NOT EXISTS floor_submissions (id TEXT PRIMARY KEY, form_id TEXT NOT NULL, data TEXT NOT NULL, created_at BIGINT NOT NULL)',
  'CREATE INDEX IF NOT EXISTS floor_submissions_listing ON floor_submissions (form_id, created_at, id)',
  'CREATE TABLE IF NOT EXISTS floor_jobs (id TEXT PRIMARY KEY, submission_id TEXT NOT NULL, kind TEXT NOT NULL, payload TEXT NOT NULL, status TEXT NOT NULL, run_at BIGINT NOT NULL)',
  'CREATE INDEX IF NOT EXISTS floor_jobs_due ON floor_jobs (status, run_at)',
];

const PAGE_SQL = (p: (n: number) => string) =>
  `SELECT id, form_id, data, created_at FROM submissions WHERE form_id = ${p(1)} AND status = 'accepted'` +
  ` AND (created_at, id) < (${p(2)}, ${p(3)}) ORDER BY created_at DESC, id DESC LIMIT ${p(4)}`;

function sqliteStore(file: string): Store {
  const db = new Sqlite(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  for (const statement of FLOOR_TABLES) db.exec(statement);
  const insertSubmission = db.prepare('INSERT INTO floor_submissions VALUES (?, ?, ?, ?)');
  const insertJob = db.prepare("INSERT INTO floor_jobs VALUES (?, ?, ?, ?, 'pending', ?)");
  // prepared at the first page: the submit floor's database has no submissions table
  let page: Sqlite.Statement | null = null;
  const insert = db.transaction((batch: Stored[], now: number) => {
    for (const s of batch) {
      insertSubmission.run(s.id, s.formId, s.data, now);
      insertJob.run(randomUUID(), s.id, 'email', '{}', now);
      insertJob.run(randomUUID(), s.id, 'webhook', s.data, now);
    }
  });
  return {
    insert: async (batch, now) => insert(batch, now),
    page: async (formId, after, limit) => {
      page ??= db.prepare(PAGE_SQL(() => '?'));
      return page.all(formId, after?.[0] ?? Number.MAX_SAFE_INTEGER, after?.[1] ?? '', limit) as ListRow[];
    },
  };
}

async function postgresStore(url: string): Promise<Store> {
  pg.types.setTypeParser(20, Number);
  pg.types.setTypeParser(114, (value) => value);
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  for (const statement of FLOOR_TABLES) await pool.query(statement);
  const pageSql = PAGE_SQL((n) => `$${n}`);
  return {
    async insert(batch, now) {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        await client.query('INSERT INTO floor_submissions SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[])', [
          batch.map((s) => s.id),
          batch.map((s) => s.formId),
          batch.map((s) => s.data),
          batch.map(() => now),
        ]);
        await client.query(
          "INSERT INTO floor_jobs SELECT id, sub, kind, payload, 'pending', $5 FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) AS j (id, sub, kind, payload)",
          [
            batch.flatMap(() => [randomUUID(), randomUUID()]),
            batch.flatMap((s) => [s.id, s.id]),
            batch.flatMap(() => ['email', 'webhook']),
            batch.flatMap((s) => ['{}', s.data]),
            now,
          ],
        );
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK');
        throw error;
      } finally {
        client.release();
      }
    },
    async page(formId, after, limit) {
      return (await pool.query<ListRow>(pageSql, [formId, after?.[0] ?? Number.MAX_SAFE_INTEGER, after?.[1] ?? '', limit])).rows;
    },
  };
}

/** Group commit: what arrives while a batch is written goes into the next one; each answer waits for its commit. */
function groupCommit(store: Store): (item: Stored) => Promise<number> {
  let waiting: { item: Stored; done: (createdAt: number) => void; failed: (error: unknown) => void }[] = [];
  let writing = false;
  const flush = async () => {
    if (writing || waiting.length === 0) return;
    writing = true;
    const batch = waiting;
    waiting = [];
    const now = Date.now();
    try {
      await store.insert(
        batch.map((w) => w.item),
        now,
      );
      for (const w of batch) w.done(now);
    } catch (error) {
      for (const w of batch) w.failed(error);
    }
    writing = false;
    setImmediate(flush);
  };
  return (item) =>
    new Promise((done, failed) => {
      waiting.push({ item, done, failed });
      setImmediate(flush);
    });
}

function sendJson(response: http.ServerResponse, status: number, body: string): void {
  response.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
  response.end(body);
}

async function main(): Promise<void> {
  const { dialect, url } = JSON.parse(process.argv[2]!) as { dialect: 'sqlite' | 'postgres'; url: string };
  const store = dialect === 'sqlite' ? sqliteStore(url.slice('sqlite:'.length)) : await postgresStore(url);
  const storeDurably = groupCommit(store);

  const server = http.createServer((request, response) => {
    const [path = '', query = ''] = (request.url ?? '/').split('?');
    if (request.method === 'GET') {
      const formId = path.split('/')[2] ?? '';
      const params = new URLSearchParams(query);
      const limit = Number(params.get('limit') ?? 25);
      const cursor = params.get('startingAfter');
      const at = cursor ? cursor.indexOf('.') : -1;
      const after: [number, string] | null = cursor ? [Number(cursor.slice(0, at)), cursor.slice(at + 1)] : null;
      store.page(formId, after, limit + 1).then(
        (rows) => {
          const more = rows.length > limit;
          if (more) rows.pop();
          const last = rows.at(-1);
          const items = rows.map((r) => `{"id":"${r.id}","formId":"${r.form_id}","data":${r.data},"createdAt":"${new Date(r.created_at).toISOString()}"}`);
          sendJson(response, 200, `{"data":[${items.join(',')}],"nextCursor":${more && last ? `"${last.created_at}.${last.id}"` : 'null'}}`);
        },
        () => sendJson(response, 500, '{}'),
      );
      return;
    }
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const data = Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString()));
      const item = { id: randomUUID(), formId: path.slice(1), data: JSON.stringify(data) };
      storeDurably(item).then(
        (createdAt) => sendJson(response, 200, JSON.stringify({ id: item.id, formId: item.formId, createdAt: new Date(createdAt).toISOString(), data })),
        () => sendJson(response, 500, '{}'),
      );
    });
  });
  server.keepAliveTimeout = 5000;
  server.listen(0, '127.0.0.1', () => process.stdout.write(`${JSON.stringify({ port: (server.address() as { port: number }).port })}\n`));
}

void main();
