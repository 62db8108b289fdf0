import type { Config } from '../config/config.js';
import { openContext, type AppContext } from '../context.js';
import type { SecretProvider } from '../db/schema/form.js';
import { describeDatabase } from '../db/database.js';
import { ProblemError, validationError } from '../errors.js';
import { repairCounts as repair } from '../services/count-repair.js';
import { DeliveryService } from '../services/deliveries.js';
import { SECRET_PROVIDERS } from '../services/form-secrets.js';
import { isPlan, PLANS } from '../domain/plans.js';
import { toTokenResource } from '../services/tokens.js';
import { toWorkspaceResource } from '../services/workspaces.js';

/** What an admin command prints: one object for `--json`, lines of text otherwise. */
export interface CommandResult {
  json: Record<string, unknown>;
  text: string[];
}

// the commands print their result on stdout (one JSON object with --json): waits and migrations go to stderr
const stderrLog = { info: (message: string) => void process.stderr.write(`formgate: ${message}\n`) };

/** Runs a command on the existing database (the other command files use it too); a refusal names that database, so a wrong folder or URL shows at once. */
export async function withContext<T>(config: Config, fn: (ctx: AppContext) => Promise<T>): Promise<T> {
  const ctx = await openContext(config, { existing: true, logger: stderrLog });
  // the audit log says these changes came from a command run on the server
  ctx.audit.outside = 'cli';
  try {
    return await fn(ctx);
  } catch (error) {
    if (!(error instanceof ProblemError)) throw error;
    throw new ProblemError(error.code, `${error.detail} (database: ${describeDatabase(config.database)})`, error.extra);
  } finally {
    await ctx.close();
  }
}

/** The one command that may set up a database: provisioning scripts run it before any other. */
export async function migrate(config: Config): Promise<CommandResult> {
  const ctx = await openContext(config, { logger: stderrLog });
  try {
    const database = describeDatabase(config.database);
    return { json: { database, migrated: true }, text: [`The database ${database} is ready.`] };
  } finally {
    await ctx.close();
  }
}

export function createUser(config: Config, email: string, password?: string): Promise<CommandResult> {
  return withContext(config, async (ctx) => {
    const { user, workspace } = await ctx.users.createUser(email, password);
    return {
      json: { user: { id: user.id, email: user.email }, workspace: toWorkspaceResource(workspace, ctx.plans) },
      text: [`Created account ${user.email} (${user.id}).`, `Its workspace: ${workspace.id} ("${workspace.name}", plan ${workspace.plan}).`],
    };
  });
}

/** A person lost their app, their recovery codes and their passkeys: the operator turns them off, and the password alone signs in again. */
export function resetTwoFactor(config: Config, email: string): Promise<CommandResult> {
  return withContext(config, async (ctx) => {
    const user = await ctx.users.requireByEmail(email);
    const removed = await ctx.twoFactor.reset(user.id);
    const sessionsEnded = await ctx.sessions.endAll(user.id);
    return {
      json: { userId: user.id, email: user.email, ...removed, sessionsEnded },
      text: [
        `Turned off the second factors of ${user.email}: ${removed.app ? 'its authenticator app, ' : ''}${removed.passkeys} passkey(s), ${removed.rememberedBrowsers} remembered browser(s); ${sessionsEnded} session(s) ended.`,
        'Its password alone signs in now; ask its owner to set up a second factor again.',
      ],
    };
  });
}

export function createToken(config: Config, opts: { email: string; name: string; scopes: string; expiresAt?: string }): Promise<CommandResult> {
  return withContext(config, async (ctx) => {
    let expiresAt: Date | null = null;
    if (opts.expiresAt !== undefined) {
      expiresAt = new Date(opts.expiresAt);
      if (Number.isNaN(expiresAt.getTime())) throw validationError([`--expires-at: "${opts.expiresAt}" is not an ISO 8601 date-time`]);
    }
    const user = await ctx.users.requireByEmail(opts.email);
    const scopes = opts.scopes
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    const { token, secret } = await ctx.tokens.createToken(user.id, { name: opts.name, scopes, expiresAt }, { via: 'command line' });
    return {
      json: { token: secret, ...toTokenResource(token) },
      text: [secret, `Token "${token.name}" for ${user.email} with ${scopes.join(', ')}; shown once, store it now.`],
    };
  });
}

export function revokeToken(config: Config, email: string, name: string): Promise<CommandResult> {
  return withContext(config, async (ctx) => {
    const user = await ctx.users.requireByEmail(email);
    const token = await ctx.tokens.revokeToken(user.id, name);
    return { json: { revoked: true, ...toTokenResource(token) }, text: [`Revoked token "${token.name}" of ${user.email}.`] };
  });
}

export function setPlan(config: Config, workspaceId: string, plan: string): Promise<CommandResult> {
  return withContext(config, async (ctx) => {
    if (!isPlan(plan)) throw validationError([`--plan: "${plan}" is not one of ${PLANS.join(', ')}`]);
    const workspace = await ctx.workspaces.setPlan(workspaceId, plan);
    const released = workspace.released > 0 ? [`${workspace.released} held submission(s) released.`] : [];
    const told = workspace.previousPlan !== workspace.plan ? ['Its owners are told by email.'] : [];
    return {
      json: { workspace: toWorkspaceResource(workspace, ctx.plans), releasedSubmissions: workspace.released },
      text: [`Workspace ${workspace.id} is now on plan ${workspace.plan}.`, ...released, ...told],
    };
  });
}

export function addMember(config: Config, workspaceId: string, email: string): Promise<CommandResult> {
  return withContext(config, async (ctx) => {
    const { workspace, userId } = await ctx.workspaces.addMember(workspaceId, email);
    return { json: { workspaceId: workspace.id, userId, email: email.trim().toLowerCase() }, text: [`Added ${email} to workspace ${workspace.id}.`] };
  });
}

export function setSecret(config: Config, formId: string, provider: string, secret: string): Promise<CommandResult> {
  return withContext(config, async (ctx) => {
    if (!(SECRET_PROVIDERS as readonly string[]).includes(provider)) {
      throw validationError([`--provider: "${provider}" is not one of ${SECRET_PROVIDERS.join(', ')}`]);
    }
    await ctx.forms.setSecret(formId, provider as SecretProvider, secret);
    return { json: { formId, provider, stored: true }, text: [`Stored the ${provider} secret of form ${formId}.`] };
  });
}

export function webhookSecret(config: Config, formId: string): Promise<CommandResult> {
  return withContext(config, async (ctx) => {
    const secret = await ctx.forms.webhookSecret(formId);
    return { json: { formId, secret }, text: [secret] };
  });
}

export function listDeliveries(config: Config, opts: { form?: string; status?: string; limit: string }): Promise<CommandResult> {
  return withContext(config, async (ctx) => {
    const limit = /^\d+$/.test(opts.limit) ? Number(opts.limit) : NaN;
    const deliveries = await new DeliveryService(ctx.database).list({ formId: opts.form, status: opts.status, limit });
    const text = deliveries.flatMap((d) => [
      `${d.id}  ${d.kind}  ${d.status}  tries ${d.attempts}  created ${d.createdAt}${d.submissionId ? `  submission ${d.submissionId}` : ''}${d.recipient ? `  to ${d.recipient}` : ''}`,
      ...(d.nextTryAt ? [`    next try ${d.nextTryAt}`] : []),
      ...d.tries.map((t) => `    ${t.startedAt}  ${t.outcome}${t.statusCode != null ? ` ${t.statusCode}` : ''}${t.error ? `  ${t.error}` : ''}`),
    ]);
    return { json: { deliveries }, text: text.length > 0 ? text : ['No deliveries.'] };
  });
}

export function retryDeliveries(config: Config, opts: { job?: string; form?: string }): Promise<CommandResult> {
  return withContext(config, async (ctx) => {
    if ((opts.job === undefined) === (opts.form === undefined)) throw validationError(['give either --job or --form']);
    const target = opts.job !== undefined ? { jobId: opts.job } : { formId: opts.form! };
    const queued = await new DeliveryService(ctx.database).retry(target);
    return {
      json: { queued },
      text: [
        queued.length > 0
          ? `Queued ${queued.length} failed deliver${queued.length === 1 ? 'y' : 'ies'} again: ${queued.join(', ')}.`
          : 'No failed deliveries to retry.',
      ],
    };
  });
}

export function repairCounts(config: Config, opts: { workspace?: string; exact?: boolean }): Promise<CommandResult> {
  return withContext(config, async (ctx) => {
    const started = Date.now();
    const report = await repair(ctx.database, { workspaceId: opts.workspace, exact: opts.exact });
    const ms = Date.now() - started;
    const { dayCounts: d, submissionsUsed: u, fileBytes: f, unreadCounts: r } = report;
    return {
      json: { ...report, ms },
      text: [
        `Checked ${report.workspacesChecked} workspace(s) in ${ms} ms${report.exact ? ' (exact)' : ''}.`,
        `Day counts: ${d.checked} checked, ${d.corrected} corrected (${d.inserted} added, ${d.deleted} removed).`,
        `Allowance used: ${u.checked} checked, ${u.corrected} corrected.`,
        `File storage used: ${f.checked} checked, ${f.corrected} corrected.`,
        `Unread counts: ${r.checked} checked, ${r.corrected} corrected.`,
        ...report.changed.map(
          (c) =>
            `  ${c.workspaceId}: ${c.dayCountsCorrected} day count(s)${c.unreadCountsCorrected ? `, ${c.unreadCountsCorrected} unread count(s)` : ''}${c.submissionsUsed ? `, used ${c.submissionsUsed.from} → ${c.submissionsUsed.to}` : ''}${c.fileBytes ? `, file bytes ${c.fileBytes.from} → ${c.fileBytes.to}` : ''}`,
        ),
      ],
    };
  });
}
