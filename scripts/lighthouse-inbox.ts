/**
 * Lighthouse's accessibility audit of the dashboard's inbox (issue 41's bar: a score of 100), at
 * Lighthouse's desktop and mobile form factors. A script rather than a test: why, and how to run it,
 * in docs/dashboard.md ("Lighthouse"). In short, from the project folder:
 *
 *   npm install --prefix /tmp/lh lighthouse@13.5.0
 *   . scripts/node-env.sh && LIGHTHOUSE=/tmp/lh/node_modules/.bin/lighthouse node --import tsx scripts/lighthouse-inbox.ts
 *
 * It builds dist/, seeds a temporary SQLite database with the inbox benchmark's workspace at 400
 * submissions (four forms, triage, labels, notes, files: bench/scenarios/inbox.ts), starts
 * `formgate serve` on it, and audits four pages as its owner: the workspace's inbox, a form's inbox,
 * a submission open in the reading pane, and the All view. It prints each score with the failed
 * audits and exits 1 unless every one is 100. CHROME_PATH names the Chromium (default /usr/bin/chromium).
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REPO_DIR } from '../bench/lib/children.js';
import { freshDatabase, removeDatabases } from '../bench/lib/databases.js';
import { withContext } from '../bench/lib/fixtures.js';
import { startFormgate } from '../bench/lib/formgate.js';
import { seedInbox } from '../bench/scenarios/inbox.js';

const SUBMISSIONS = 400;
const LIGHTHOUSE = process.env.LIGHTHOUSE ?? 'lighthouse';
const CHROME_PATH = process.env.CHROME_PATH ?? '/usr/bin/chromium';
// headless, and nothing of Chromium's own traffic (updates, field trials) in the audit
const CHROME_FLAGS = '--headless --no-sandbox --disable-gpu --disable-background-networking';
const RUN_DEADLINE_MS = 120_000;
const FORM_FACTORS = ['desktop', 'mobile'] as const;

interface Audit {
  score: number | null;
  title: string;
  details?: { items?: { node?: { snippet?: string } }[] };
}
interface Report {
  finalDisplayedUrl: string;
  runtimeError?: { message: string };
  categories: { accessibility: { score: number | null } };
  audits: Record<string, Audit>;
}

function say(message: string): void {
  process.stderr.write(`[lighthouse-inbox] ${message}\n`);
}

/** One Lighthouse run, accessibility only: its report. */
function audit(url: string, session: string, formFactor: (typeof FORM_FACTORS)[number], out: string): Promise<Report> {
  const args = [
    url,
    '--only-categories=accessibility',
    `--chrome-flags=${CHROME_FLAGS}`,
    `--extra-headers=${JSON.stringify({ Cookie: `fg_session=${session}` })}`,
    '--output=json',
    `--output-path=${out}`,
    '--quiet',
    ...(formFactor === 'desktop' ? ['--preset=desktop'] : []),
  ];
  return new Promise((resolve, reject) => {
    const child = spawn(LIGHTHOUSE, args, { env: { ...process.env, CHROME_PATH }, stdio: ['ignore', 'inherit', 'inherit'] });
    const timer = setTimeout(() => child.kill('SIGKILL'), RUN_DEADLINE_MS);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(new Error(`could not run ${LIGHTHOUSE} (${error.message}): install Lighthouse and name it in LIGHTHOUSE (docs/dashboard.md, "Lighthouse")`));
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      if (code !== 0) reject(new Error(`lighthouse exited with ${code} on ${url}`));
      else resolve(JSON.parse(fs.readFileSync(out, 'utf8')) as Report);
    });
  });
}

/** The audits that failed, each with up to three of the elements it names. */
function failuresOf(report: Report): string[] {
  return Object.entries(report.audits)
    .filter(([, a]) => a.score !== null && a.score < 1)
    .map(([id, a]) => {
      const snippets = (a.details?.items ?? []).slice(0, 3).map((item) => item.node?.snippet ?? '');
      return `${id}: ${a.title}${snippets.length > 0 ? `\n      ${snippets.join('\n      ')}` : ''}`;
    });
}

async function main(): Promise<number> {
  say('building dist/');
  const build = spawnSync(process.execPath, [path.join(REPO_DIR, 'scripts', 'build.mjs')], { cwd: REPO_DIR, stdio: 'inherit' });
  if (build.status !== 0) throw new Error('the build failed');
  const database = await freshDatabase('sqlite', 'lighthouse');
  say(`seeding ${SUBMISSIONS} submissions with triage and labels`);
  const fixture = await seedInbox(database, SUBMISSIONS);
  // an open submission a few rows down the workspace's inbox, for the reading pane
  const opened = await withContext(database, (ctx) =>
    ctx.database.db
      .selectFrom('submissions')
      .select('id')
      .where('workspaceId', '=', fixture.workspaceId)
      .where('doneAt', 'is', null)
      .orderBy('createdAt', 'desc')
      .orderBy('id', 'desc')
      .offset(2)
      .limit(1)
      .executeTakeFirstOrThrow(),
  );
  const formgate = await startFormgate({ databaseUrl: database.url, dataDir: database.dataDir });
  const reports = fs.mkdtempSync(path.join(os.tmpdir(), 'formgate-lighthouse-'));
  let failed = 0;
  try {
    const inbox = `/w/${fixture.workspaceId}/submissions`;
    const pages = [
      ["workspace's inbox", inbox],
      ["a form's inbox", `/forms/${fixture.formId}`],
      ['reading pane', `${inbox}?submission=${opened.id}`],
      ['All view', `${inbox}?state=all`],
    ] as const;
    for (const [name, pagePath] of pages) {
      for (const formFactor of FORM_FACTORS) {
        const out = path.join(reports, `${name.replace(/\W+/g, '-')}-${formFactor}.json`);
        const report = await audit(`${formgate.apiOrigin}${pagePath}`, fixture.session, formFactor, out);
        const score = report.categories.accessibility.score;
        const shown = score === null ? `no score (${report.runtimeError?.message ?? 'unknown error'})` : String(Math.round(score * 100));
        // a page that sent the browser elsewhere (the login page) was not the inbox
        const landed = new URL(report.finalDisplayedUrl).pathname === pagePath.split('?')[0];
        const failures = [...failuresOf(report), ...(landed ? [] : [`landed on ${report.finalDisplayedUrl}, not the inbox`])];
        if (score !== 1 || failures.length > 0) failed++;
        process.stdout.write(`${`${name}, ${formFactor}`.padEnd(30)} ${shown}\n${failures.map((f) => `    ${f}\n`).join('')}`);
      }
    }
  } finally {
    await formgate.stop();
    await removeDatabases();
  }
  process.stdout.write(failed === 0 ? 'every page scores 100\n' : `${failed} page(s) below 100; the reports are in ${reports}\n`);
  if (failed === 0) fs.rmSync(reports, { recursive: true, force: true });
  return failed === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`lighthouse-inbox failed: ${error instanceof Error ? error.message : String(error)}\n`);
    void removeDatabases().finally(() => process.exit(2));
  },
);
