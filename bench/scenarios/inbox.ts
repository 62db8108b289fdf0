import http from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { sql } from 'kysely';
import type { AppContext } from '../../src/context.js';
import type { LoadFigures } from '../load/spec.js';
import { freshDatabase, type BenchDatabase, type BenchDialect } from '../lib/databases.js';
import { createAccount, createForm, seedSpread, settle, withContext } from '../lib/fixtures.js';
import { cpuPerRequestUs, startFormgate, type Formgate } from '../lib/formgate.js';
import { runLoad } from '../lib/load.js';
import { sampleFields } from '../lib/sample-data.js';
import { SETTINGS } from '../lib/settings.js';

/** One of the inbox's pages as a browser asks for it: its latency at one connection, its server CPU and its weight. */
export interface InboxSurface {
  name: string;
  path: string;
  load: LoadFigures;
  cpuPerRequestUs: number | null;
  /** Rows of its list (a full page is 50). */
  rows: number;
  /** The page as sent (compressed) and as read, in bytes, and the encoding the server chose. */
  sentBytes: number;
  htmlBytes: number;
  encoding: string;
}

export interface InboxResult {
  dialect: BenchDialect;
  submissions: number;
  /** Open accepted submissions of the workspace (the page counts them up to OPEN_CAP). */
  open: number;
  surfaces: InboxSurface[];
  seedMs: number;
}

/** The forms of the agency's workspace and their share of its 100,000 submissions, in tenths of a percent. */
const FORMS = [
  { name: 'Contact', share: 550 },
  { name: 'Request a quote', share: 250 },
  { name: 'Support', share: 150 },
  { name: 'Careers', share: 50 },
];
/** The oldest 90% are done, the newest 1.5% unread (1,500 of 100,000): a team that keeps up, with a backlog of open ones. */
const DONE_SHARE = 0.9;
const UNREAD_SHARE = 0.015;
const LABELS = [
  ['Urgent', 'red'],
  ['Sales', 'green'],
  ['Billing', 'orange'],
  ['Partner', 'blue'],
  ['Follow up', 'purple'],
  ['Press', 'gray'],
] as const;
/** The page of the workspace's inbox that "a later page" is: reached by following Next page from the first. */
const LATER_PAGE = 100;
/** What Chromium sends. */
const BROWSER_ENCODINGS = 'gzip, deflate, br, zstd';

/** The inbox scenario's workspace, seeded and triaged, and a signed-in session of its owner. */
export interface InboxFixture {
  workspaceId: string;
  formId: string;
  session: string;
  open: number;
}

/** Seeds the agency's workspace into `database` (see runInbox); `count` submissions (fewer for a page to look at: scripts/lighthouse-inbox.ts). */
export async function seedInbox(database: BenchDatabase, count = SETTINGS.inboxSubmissions): Promise<InboxFixture> {
  return withContext(database, async (ctx) => {
    // team mode, as an agency runs it for itself: no allowance stops the 100,000
    await ctx.instance.setUsage('team');
    const account = await createAccount(ctx, 'owner@agency.example');
    const formIds: string[] = [];
    for (const form of FORMS) formIds.push(await createForm(ctx, account, { name: form.name }));
    await seedSpread(ctx, spreadOver(formIds), count, sampleFields);
    const members = [account.userId];
    for (const email of ['sam@agency.example', 'rui@agency.example']) {
      const { user } = await ctx.users.createUser(email);
      await ctx.workspaces.addMember(account.workspaceId, email);
      members.push(user.id);
    }
    const labelIds: string[] = [];
    for (const [name, color] of LABELS) labelIds.push((await ctx.labels.create(account.userId, account.workspaceId, { name, color })).id);
    await triage(ctx, account.workspaceId, members, labelIds);
    await settle(ctx);
    const open = await ctx.database.db
      .selectFrom('submissions')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('workspaceId', '=', account.workspaceId)
      .where('status', '=', 'accepted')
      .where('doneAt', 'is', null)
      .executeTakeFirstOrThrow();
    const { secret } = await ctx.sessions.start(account.userId);
    return { workspaceId: account.workspaceId, formId: formIds[0]!, session: secret, open: Number(open.n) };
  });
}

/**
 * The dashboard's inbox (issue 41's bar): an agency's workspace with 100,000 accepted submissions
 * over four forms, seeded through the intake pipeline, then triaged as a team leaves it (most done,
 * some assigned to three members, some labelled, the newest unread). A signed-in member loads the
 * workspace's inbox, a form's inbox and a later page of the first, one request at a time, as a
 * browser asks (Accept-Encoding included): latency, server CPU per page and the page's weight.
 */
export async function runInbox(dialect: BenchDialect): Promise<InboxResult> {
  const database = await freshDatabase(dialect, 'inbox');
  const started = performance.now();
  const fixture = await seedInbox(database);
  const seedMs = performance.now() - started;
  const formgate = await startFormgate({ databaseUrl: database.url, dataDir: database.dataDir });
  try {
    const headers = { cookie: `fg_session=${fixture.session}`, accept: 'text/html', 'accept-encoding': BROWSER_ENCODINGS };
    const first = `/w/${fixture.workspaceId}/submissions`;
    const later = await pageByCursor(formgate, headers, first, LATER_PAGE);
    const surfaces: InboxSurface[] = [];
    for (const [name, path] of [
      ["workspace's inbox (Open)", first],
      ["a form's inbox (Open)", `/forms/${fixture.formId}`],
      [`workspace's inbox, page ${LATER_PAGE} by its cursor`, later],
    ] as const) {
      const page = await pageOf(formgate, headers, path);
      const before = formgate.cpuMs();
      const load = await runLoad({
        origin: formgate.apiOrigin,
        connections: 1,
        durationSec: SETTINGS.durationSec,
        warmupSec: SETTINGS.warmupSec,
        method: 'GET',
        headers,
        paths: [path],
      });
      const after = formgate.cpuMs();
      const cpu = cpuPerRequestUs(before === null || after === null ? null : after - before, load);
      surfaces.push({
        name,
        path,
        load,
        cpuPerRequestUs: cpu,
        rows: page.rows,
        sentBytes: page.sentBytes,
        htmlBytes: Buffer.byteLength(page.html),
        encoding: page.encoding,
      });
    }
    return { dialect, submissions: SETTINGS.inboxSubmissions, open: fixture.open, surfaces, seedMs };
  } finally {
    await formgate.stop();
  }
}

/** The i-th submission's form: the forms' shares interleaved, so each form's submissions are spread over the whole time. */
function spreadOver(formIds: string[]): (i: number) => string {
  const slots = FORMS.flatMap((form, f) => Array.from({ length: form.share }, () => formIds[f]!));
  return (i) => slots[(i * 7919) % slots.length]!;
}

/**
 * The team's marks, written as the triage, labels and marks services write them (in bulk here): the
 * oldest 90% done (a third of them assigned), of the open ones one in seven assigned to the viewer
 * and two in seven to the others; one in five labelled (one in fifteen twice); the newest unread,
 * a few with a note or a file.
 */
async function triage(ctx: AppContext, workspaceId: string, members: string[], labelIds: string[]): Promise<void> {
  const db = ctx.database.db;
  const range = await db
    .selectFrom('submissions')
    .select((eb) => [eb.fn.min('seq').as('low'), eb.fn.max('seq').as('high')])
    .where('workspaceId', '=', workspaceId)
    .executeTakeFirstOrThrow();
  const [low, high] = [Number(range.low), Number(range.high)];
  const lastDone = low + Math.floor((high - low + 1) * DONE_SHARE) - 1;
  const [viewer, sam, rui] = members as [string, string, string];
  await sql`UPDATE submissions SET done_at = created_at + 3600000 WHERE workspace_id = ${workspaceId} AND seq <= ${lastDone}`.execute(db);
  await sql`UPDATE submissions SET assignee_id = CASE seq % 3 WHEN 0 THEN ${viewer} WHEN 1 THEN ${sam} ELSE ${rui} END
    WHERE workspace_id = ${workspaceId} AND seq <= ${lastDone} AND seq % 9 < 3`.execute(db);
  await sql`UPDATE submissions SET assignee_id = CASE seq % 7 WHEN 0 THEN ${viewer} WHEN 1 THEN ${sam} ELSE ${rui} END
    WHERE workspace_id = ${workspaceId} AND seq > ${lastDone} AND seq % 7 < 3`.execute(db);
  const unread = Math.ceil((high - low + 1) * UNREAD_SHARE);
  await sql`UPDATE submissions SET unread = 0 WHERE workspace_id = ${workspaceId} AND seq <= ${high - unread}`.execute(db);
  await sql`UPDATE submissions SET note = 'Called back, waiting for their brief.' WHERE workspace_id = ${workspaceId} AND seq % 50 = 0`.execute(db);
  // one in forty came with a file: its row as the intake writes it (no bytes: the inbox only counts them)
  await sql`INSERT INTO submission_files (id, submission_id, form_id, workspace_id, field, position, name, type, size, storage_key, dropped_reason, created_at)
    SELECT 'file' || id, id, form_id, workspace_id, 'brief', 0, 'brief.pdf', 'application/pdf', 48213, 'bench/' || id, NULL, created_at
    FROM submissions WHERE workspace_id = ${workspaceId} AND seq % 40 = 0`.execute(db);
  for (const [k, labelId] of labelIds.entries()) {
    await sql`INSERT INTO submission_labels (submission_id, label_id, created_at)
      SELECT id, ${labelId}, created_at FROM submissions
      WHERE workspace_id = ${workspaceId} AND seq % 5 = 0 AND ((seq / 5) % ${labelIds.length} = ${k} OR (seq % 15 = 0 AND (seq / 5 + 1) % ${labelIds.length} = ${k}))`.execute(
      db,
    );
  }
}

/** One request as a browser makes it: the bytes sent, the page decoded, and its list's rows. */
async function pageOf(
  formgate: Formgate,
  headers: Record<string, string>,
  path: string,
): Promise<{ html: string; sentBytes: number; encoding: string; rows: number }> {
  const { status, body, encoding } = await get(`${formgate.apiOrigin}${path}`, headers);
  if (status !== 200) throw new Error(`GET ${path} answered ${status}`);
  const html = (encoding === 'br' ? brotliDecompressSync(body) : encoding === 'gzip' ? gunzipSync(body) : body).toString('utf8');
  const list = /<table class="submission-list"[\s\S]*?<tbody>([\s\S]*?)<\/tbody>/.exec(html);
  const rows = list ? (list[1]!.match(/<tr[\s>]/g) ?? []).length : 0;
  return { html, sentBytes: body.length, encoding: encoding ?? 'identity', rows };
}

/** The path of page `page` of the list at `first`, by following its Next page links as a person does. */
async function pageByCursor(formgate: Formgate, headers: Record<string, string>, first: string, page: number): Promise<string> {
  let path = first;
  for (let n = 1; n < page; n++) {
    const next = /<a href="([^"]+)">Next page<\/a>/.exec((await pageOf(formgate, headers, path)).html);
    if (!next) throw new Error(`the inbox ended before page ${page}`);
    path = next[1]!.replaceAll('&amp;', '&');
  }
  return path;
}

function get(url: string, headers: Record<string, string>): Promise<{ status: number; body: Buffer; encoding: string | undefined }> {
  return new Promise((resolve, reject) => {
    const request = http.get(url, { headers, agent: false }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks), encoding: response.headers['content-encoding'] as string | undefined }),
      );
      response.on('error', reject);
    });
    request.on('error', reject);
  });
}
