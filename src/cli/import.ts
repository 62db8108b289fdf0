// `formgate import`: workspaces, forms, templates and submissions read from another server's
// management API (the hosted service, another Formgate) written into an account's workspaces here.
import type { Config } from '../config/config.js';
import { openContext, type AppContext } from '../context.js';
import { needsSecretKey } from '../domain/captcha-providers.js';
import { ProblemError } from '../errors.js';
import { notificationEmailsOf } from '../services/forms.js';
import { checkForm, checkSubmission, checkWorkspace, type CheckedForm, isProblem } from '../services/import-checks.js';
import { ImportService } from '../services/imports.js';
import type { CommandResult } from './admin.js';
import { DEFAULT_MAX_ANSWER_BYTES, SourceApi, SourceError } from './import-source.js';
import { type ImportSummary, type KindCounts, summaryText } from './import-summary.js';
import { startProgress, type Progress } from './progress.js';

export interface ImportOptions {
  from: string;
  token: string;
  owner: string;
  workspace?: string;
  /** `--max-answer-mb`: the bound of one answer of the source, in MB (default 128). */
  maxAnswerMb?: string;
  json?: boolean;
}

const NEEDED_SCOPES = ['workspaces:read', 'forms:read', 'submissions:read'];
// lines of one kind listed in full; past this, a count of the rest
const LINES_PER_KIND = 50;
const TEMPLATE_KINDS = ['notification', 'autoresponder'] as const;
type Kind = 'workspaces' | 'forms' | 'templates' | 'submissions';

/** The command: opens the database, reads the source, prints the summary (exit 1 when it stopped early). */
export async function importCommand(config: Config, options: ImportOptions): Promise<CommandResult & { stopped: boolean }> {
  const stderr = (line: string) => void process.stderr.write(`formgate: ${line}\n`);
  const token = options.token === '-' ? (await readStdin()).trim() : options.token;
  const source = new SourceApi({
    baseUrl: sourceUrl(options.from),
    token,
    maxAnswerBytes: maxAnswerBytes(options.maxAnswerMb),
    onRetry: (what, ms) => stderr(`${what}; trying again in ${Math.ceil(ms / 1000)} s`),
  });
  // NOTE: serve may run meanwhile: on SQLite each page's transaction waits for the write lock as it begins (openContext)
  const ctx = await openContext(config, { existing: true, logger: { info: stderr } });
  try {
    const progress = startProgress('Importing submissions', 0, { quiet: options.json });
    const summary = await runImport(ctx, source, { owner: options.owner, workspace: options.workspace }, progress);
    return { json: { ...summary }, text: summaryText(summary, config.submitUrl), stopped: summary.stopped !== undefined };
  } finally {
    await ctx.close();
  }
}

/**
 * Checks the account here and the token there (nothing is written when either fails), then copies
 * workspace by workspace, form by form, a page of submissions per transaction. A failure of the
 * source after the checks stops the run with what it did so far (`stopped`).
 */
export async function runImport(
  ctx: AppContext,
  source: SourceApi,
  options: { owner: string; workspace?: string },
  progress: Progress,
): Promise<ImportSummary> {
  const started = Date.now();
  const imports = new ImportService(ctx.database, ctx.users, ctx.config.confirmRecipients, ctx.plans);
  const owner = await imports.owner(options.owner);
  const me = await source.me();
  const missing = NEEDED_SCOPES.filter((scope) => !me.scopes.includes(scope));
  if (missing.length > 0)
    throw new SourceError(`The token lacks ${missing.join(', ')}; an import needs ${NEEDED_SCOPES.join(', ')}.`, 403, 'insufficient_scope');
  const workspaces: unknown[] = [];
  for await (const page of source.pages('/workspaces')) workspaces.push(...page);
  const chosen = options.workspace === undefined ? workspaces : workspaces.filter((w) => (w as { id?: unknown })?.id === options.workspace);
  if (chosen.length === 0 && options.workspace !== undefined) {
    throw new SourceError(`The token does not see a workspace ${options.workspace} at ${source.baseUrl}.`, 404, 'not_found');
  }
  const run = new ImportRun(ctx, imports, source, owner, progress);
  try {
    for (const raw of chosen) await run.workspace(raw);
  } catch (error) {
    if (!(error instanceof SourceError)) throw error;
    run.summary.stopped = error.message;
  } finally {
    progress.finish();
  }
  run.finish(started);
  return run.summary;
}

/** One run's state: the counts and lines of the summary as they are made. */
class ImportRun {
  readonly summary: ImportSummary;
  private readonly lines = { conflicts: 0, skipped: 0 };

  constructor(
    private readonly ctx: AppContext,
    private readonly imports: ImportService,
    private readonly source: SourceApi,
    private readonly owner: { id: string; email: string },
    private readonly progress: Progress,
  ) {
    const counts = (): KindCounts => ({ created: 0, existing: 0, conflicts: 0, skipped: 0 });
    this.summary = {
      source: source.baseUrl,
      owner: owner.email,
      workspaces: counts(),
      forms: counts(),
      templates: counts(),
      submissions: counts(),
      conflicts: [],
      skipped: [],
      toDo: [],
      ms: 0,
    };
  }

  async workspace(raw: unknown): Promise<void> {
    const workspace = checkWorkspace(raw);
    if (isProblem(workspace)) return this.skip('workspaces', `a workspace: ${workspace.problem}`);
    const label = `workspace ${workspace.id} ("${workspace.name}")`;
    if (workspace.plan === 'FREE') {
      this.summary.workspaces.skipped++;
      this.summary.toDo.push(`${label}: FREE at the source, whose API reads only upgraded workspaces: upgrade it there (or copy it by hand) and import again.`);
      return;
    }
    const { outcome, plan } = await this.imports.importWorkspace(this.owner.id, workspace);
    if (outcome === 'conflict') return this.conflict('workspaces', `${label}: the id belongs to another account's workspace here; nothing of it was imported.`);
    this.count('workspaces', outcome);
    if (outcome === 'created' && plan !== workspace.plan) this.summary.toDo.push(`${label}: plan ${workspace.plan} is unknown here; created on ${plan}.`);
    const forms: CheckedForm[] = [];
    try {
      for await (const page of this.source.pages('/forms', { workspaceId: workspace.id })) {
        for (const rawForm of page) {
          const form = await this.form(rawForm, workspace.id);
          if (form) forms.push(form);
        }
      }
    } catch (error) {
      if (!(error instanceof SourceError) || error.status !== 403 || error.code !== 'upgrade_required') throw error;
      this.summary.toDo.push(`${label}: the source answers upgrade_required for its forms: upgrade it there and import again.`);
    }
    for (const form of forms) {
      await this.templates(form);
      await this.submissions(form);
    }
    if ((await this.imports.allowanceLeft(workspace.id)) === 0) {
      this.summary.toDo.push(`${label}: has used all of its plan's allowance of submissions here: new ones are held until it grows.`);
    }
  }

  /** The form written or found here (null: a conflict or skipped), with what is left to do for it. */
  private async form(raw: unknown, workspaceId: string): Promise<CheckedForm | null> {
    const form = checkForm(raw, this.ctx.outbound);
    if (isProblem(form)) {
      this.skip('forms', `a form of workspace ${workspaceId}: ${form.problem}`);
      return null;
    }
    if (form.workspaceId !== workspaceId) {
      this.skip('forms', `form ${form.id}: listed under workspace ${workspaceId} but says ${form.workspaceId}`);
      return null;
    }
    const label = `form ${form.id} ("${form.settings.name}")`;
    const { outcome, differs } = await this.imports.importForm(this.owner.id, workspaceId, form);
    if (outcome === 'conflict') {
      this.conflict('forms', `${label}: the id is taken here outside workspace ${workspaceId}; neither it nor its submissions were imported.`);
      return null;
    }
    if (outcome === 'full') {
      this.skip('forms', `${label}: workspace ${workspaceId} has all the forms its plan allows here.`);
      return null;
    }
    this.count('forms', outcome);
    const toDo = this.summary.toDo;
    if (outcome === 'created') {
      for (const dropped of form.dropped) toDo.push(`${label}: not kept: ${dropped}.`);
      if (form.settings.webhookUrl)
        toDo.push(`${label}: its webhooks are signed with a new secret here: give the receiver \`formgate forms webhook-secret --form ${form.id}\`.`);
    }
    if (differs.length > 0) toDo.push(`${label}: changed at the source since it was imported (${differs.join(', ')}); kept as it is here.`);
    const here = await this.ctx.forms.getForm(this.owner.id, form.id);
    const secrets = await this.imports.storedSecrets(form.id);
    if (form.spamProtection && here.spamProtection === null) {
      const store =
        !needsSecretKey(form.spamProtection) || secrets.has(form.spamProtection)
          ? ''
          : `store its secret key (\`formgate forms set-secret --form ${form.id} --provider ${form.spamProtection} --secret …\`, or Settings → Secret keys), then `;
      toDo.push(
        `${label}: its CAPTCHA (${form.spamProtection}) is off here until you ${store}choose it on its Settings page; meanwhile it takes submissions without one.`,
      );
    }
    if (here.slackChannel && !secrets.has('SLACK')) {
      toDo.push(
        `${label}: messages to Slack ${here.slackChannel} need the Slack token: \`formgate forms set-secret --form ${form.id} --provider SLACK --secret …\`.`,
      );
    }
    const waiting = await this.imports.unconfirmedRecipients(workspaceId, notificationEmailsOf(here));
    if (waiting.length > 0) toDo.push(`${label}: ${waiting.join(', ')} receive notifications once confirmed: send the links from its Settings page.`);
    return form;
  }

  /** Each template the source has and this form has not yet, written as code (content checked like any other). */
  private async templates(form: CheckedForm): Promise<void> {
    const label = `form ${form.id} ("${form.settings.name}")`;
    const here = await this.ctx.templates.templatesOf(this.owner.id, form.id);
    for (const kind of TEMPLATE_KINDS) {
      let template: Awaited<ReturnType<SourceApi['template']>>;
      try {
        template = await this.source.template(form.id, kind);
      } catch (error) {
        if (!(error instanceof SourceError) || error.status === 401 || error.status === 0) throw error;
        this.skip('templates', `${label}: its ${kind} template could not be read (${error.message}); copy it by hand.`);
        continue;
      }
      if (template === null) continue;
      if (here[kind]) {
        this.summary.templates.existing++;
        continue;
      }
      if (typeof template.code !== 'string') {
        this.skip('templates', `${label}: its ${kind} template came without code; copy it by hand.`);
        continue;
      }
      try {
        const { pausedFor } = await this.ctx.templates.putTemplate(this.owner.id, form.id, kind, template.code);
        this.summary.templates.created++;
        if (template.mode === 'visual') this.summary.toDo.push(`${label}: its ${kind} template was built in the visual editor there; here it is code.`);
        if (pausedFor.length > 0) this.summary.toDo.push(`${label}: its autoresponder is paused here by the content check (${pausedFor.join('; ')}).`);
      } catch (error) {
        if (!(error instanceof ProblemError)) throw error;
        this.skip('templates', `${label}: its ${kind} template was refused here (${error.code}: ${error.detail}); copy it by hand.`);
      }
    }
  }

  /** The form's submissions, a page (100) per transaction, the next page read while one is written. */
  private async submissions(form: CheckedForm): Promise<void> {
    const path = `/forms/${encodeURIComponent(form.id)}/submissions`;
    try {
      for await (const page of this.source.pages(path)) {
        const valid = [];
        for (const raw of page) {
          const submission = checkSubmission(raw, form.id);
          if (isProblem(submission)) this.skip('submissions', `a submission of form ${form.id}: ${submission.problem}`);
          else valid.push(submission);
        }
        const written = await this.imports.importSubmissions(this.owner.id, form.id, valid);
        this.summary.submissions.created += written.created;
        this.summary.submissions.existing += written.existing;
        for (const id of written.conflicts)
          this.conflict('submissions', `submission ${id} (form ${form.id}): the id is taken here by another form's submission.`);
        this.progress.advance(page.length);
      }
    } catch (error) {
      // the form went away at the source meanwhile: its other forms go on
      if (!(error instanceof SourceError) || error.status !== 404) throw error;
      this.skip('submissions', `form ${form.id}: its submissions could not be listed (${error.message}).`);
    }
  }

  /** The lines every import ends with: what no run can carry. */
  finish(started: number): void {
    this.summary.toDo.push(
      'Spam (quarantined), held and deleted submissions are not listed by the API: they stay at the source.',
      'Secret keys (CAPTCHA keys, the Slack token, the automation-tool key) are never shown by the API: store them here (lines above).',
      'Team members and API tokens are not carried: invite the members again (Team page) and make new tokens (`formgate tokens create`).',
      'The delivery history stays at the source; imported submissions were delivered there and are sent nothing here.',
    );
    this.summary.ms = Date.now() - started;
  }

  private count(kind: 'workspaces' | 'forms', outcome: 'created' | 'existing' | 'full'): void {
    if (outcome === 'created') this.summary[kind].created++;
    else if (outcome === 'existing') this.summary[kind].existing++;
  }

  private conflict(kind: Kind, line: string): void {
    this.summary[kind].conflicts++;
    this.listLine('conflicts', line);
  }

  private skip(kind: Kind, line: string): void {
    this.summary[kind].skipped++;
    this.listLine('skipped', line);
  }

  private listLine(list: 'conflicts' | 'skipped', line: string): void {
    const shown = ++this.lines[list];
    if (shown <= LINES_PER_KIND) this.summary[list].push(line);
    else if (shown === LINES_PER_KIND + 1) this.summary[list].push(`… and more (see the counts).`);
  }
}

/** `--max-answer-mb` in bytes: a whole number of MB from 1 to 4096; the default when not given. */
function maxAnswerBytes(value: string | undefined): number {
  if (value === undefined) return DEFAULT_MAX_ANSWER_BYTES;
  if (!/^\d{1,4}$/.test(value) || Number(value) < 1 || Number(value) > 4096)
    throw new SourceError(`--max-answer-mb: "${value}" must be a whole number of MB from 1 to 4096.`, 0, 'usage');
  return Number(value) * 1024 * 1024;
}

/** `--from` as a URL: http or https only. */
function sourceUrl(from: string): string {
  let url: URL;
  try {
    url = new URL(from);
  } catch {
    throw new SourceError(`--from: "${from}" is not a URL; give the management API's base URL, e.g. https://api.example.com/public/v1.`, 0, 'usage');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new SourceError(`--from: "${from}" must be an http or https URL.`, 0, 'usage');
  return url.href;
}

async function readStdin(): Promise<string> {
  let text = '';
  for await (const chunk of process.stdin) text += chunk;
  return text;
}
