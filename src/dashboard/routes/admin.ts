import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import type { AppContext } from '../../context.js';
import { ProblemError } from '../../errors.js';
import { MailCheckService } from '../../services/mail-check.js';
import { fieldErrors } from '../field-errors.js';
import { setFlash } from '../flash.js';
import { frameFor } from '../frame.js';
import { setMailTestResult, takeMailTestResult } from '../mail-test-result.js';
import { seeOther, sendPage } from '../render.js';
import { accountOf, requireAccount, safeNext } from '../session.js';
import { TestEmailLimit } from '../test-email-limit.js';
import { planLabel } from '../../domain/plans.js';
import { AccountAdminPage } from '../views/admin-account-page.js';
import { AdminPage, type SettingErrors } from '../views/admin-page.js';

const PAGE_SIZE = 50;

interface Cursors {
  accounts?: string;
  workspaces?: string;
}

/** The instance admin's page: accounts, workspaces, plan changes, the mail check and the deliveries switch. Anyone else gets the 404 page. */
export function registerAdminRoutes(app: FastifyInstance, ctx: AppContext, redis: Redis | null = null): void {
  // checked before anything is read, so the page's existence shows to no one else
  const requireAdmin = async (request: FastifyRequest) => ctx.admin.requireAdmin(accountOf(request).user);
  const preHandler = [requireAccount, requireAdmin];
  const mail = new MailCheckService(ctx.config);
  const testLimit = new TestEmailLimit(redis, 'rl-smtp-test');

  // straight through the transport, to the admin's own address; the answer is shown in the mail section
  app.post('/admin/mail/test', { preHandler }, async (request, reply) => {
    const { user } = accountOf(request);
    const refusal = await testLimit.take(user.id);
    if (refusal) setMailTestResult(reply, { refused: Math.max(1, Math.ceil(refusal.retryAfterSeconds / 60)) });
    else setMailTestResult(reply, await mail.sendTest(user.email));
    return seeOther(reply, '/admin#mail');
  });

  // the installation-wide switch: every instance stops (or starts) sending within two seconds
  app.post<{ Body: { deliveries?: string } }>('/admin/deliveries', { preHandler }, async (request, reply) => {
    const wanted = request.body?.deliveries;
    if (wanted !== 'paused' && wanted !== 'on') throw new ProblemError('validation_error', 'deliveries must be paused or on');
    const { user } = accountOf(request);
    const status = wanted === 'paused' ? await ctx.deliveryPause.pause(user.email) : await ctx.deliveryPause.resume();
    request.log.warn({ deliveries: wanted, by: user.email }, `deliveries ${wanted === 'paused' ? 'paused' : 'resumed'} from the admin page`);
    const held = status.paused ? `Deliveries are paused: ${status.waiting.toLocaleString('en-US')} waiting.` : 'Deliveries resumed: what waited is being sent.';
    setFlash(reply, held);
    return seeOther(reply, '/admin#deliveries');
  });

  app.get<{ Querystring: Record<string, unknown> }>('/admin', { preHandler }, (request, reply) => adminPage(request, reply, cursorsOf(request.query)));

  // how the installation is used: team (everything, no caps) or hosting (the plans)
  app.post<{ Body: { usage?: string } }>('/admin/usage', { preHandler }, async (request, reply) => {
    try {
      const usage = await ctx.admin.setUsage(accountOf(request).user, String(request.body?.usage ?? ''));
      request.log.warn({ usage, by: accountOf(request).user.email }, 'how the installation is used changed from the admin page');
      setFlash(
        reply,
        usage === 'team'
          ? 'This installation is now for you and your team: every workspace has every feature and no limit.'
          : 'This installation now hosts forms for others: plans and their limits apply.',
      );
      return seeOther(reply, '/admin#usage');
    } catch (error) {
      return adminPage(request, reply, {}, undefined, 400, { usage: fieldErrors(error).usage ?? 'The setting could not be changed.' });
    }
  });

  app.post<{ Body: { webhookAllow?: string } }>('/admin/webhook-allow', { preHandler }, async (request, reply) => {
    const text = String(request.body?.webhookAllow ?? '');
    try {
      await ctx.admin.setWebhookAllow(accountOf(request).user, text);
      request.log.warn({ webhookAllow: text.trim(), by: accountOf(request).user.email }, 'webhooks to private networks changed from the admin page');
      setFlash(reply, text.trim() === '' ? 'Webhooks reach public addresses only (besides FORMGATE_WEBHOOK_ALLOW).' : 'Webhooks to private networks saved.');
      return seeOther(reply, '/admin#webhook-allow');
    } catch (error) {
      const errors = Object.values(fieldErrors(error)).join(' ');
      return adminPage(request, reply, {}, undefined, 400, { webhookAllow: errors, webhookAllowText: text });
    }
  });

  // every account must have a second factor (issue 43); a checkbox: absent when unticked
  app.post<{ Body: { required?: unknown } }>('/admin/two-factor', { preHandler }, async (request, reply) => {
    const required = request.body?.required === '1';
    await ctx.admin.setRequireTwoFactor(accountOf(request).user, required);
    request.log.warn({ required, by: accountOf(request).user.email }, 'two-factor requirement for everyone changed from the admin page');
    setFlash(
      reply,
      required ? 'Every account must now have a second factor.' : 'Accounts may sign in without a second factor (unless a workspace requires one).',
    );
    return seeOther(reply, '/admin#two-factor');
  });

  // one account: what disabling or deleting it does, and the buttons that do it
  app.get<{ Params: { accountId: string } }>('/admin/accounts/:accountId', { preHandler }, async (request, reply) => {
    const { user } = accountOf(request);
    const [frame, fate] = await Promise.all([frameFor(request, reply, ctx, { section: 'admin' }), accountFateOrBack(request.params.accountId, user)]);
    if (!fate) return seeOther(reply, '/admin#accounts');
    return sendPage(reply, AccountAdminPage({ frame, fate, factors: await ctx.twoFactor.factorsOf(fate.id) }));
  });

  app.post<{ Params: { accountId: string; action: string } }>('/admin/accounts/:accountId/:action', { preHandler }, async (request, reply) => {
    const { user } = accountOf(request);
    const { accountId, action } = request.params;
    if (action === 'reset-two-factor') {
      // accountFate refuses the admin's own account, as for disabling it
      const fate = await ctx.admin.accountFate(user, accountId);
      const removed = await ctx.twoFactor.reset(fate.id);
      const sessionsEnded = await ctx.sessions.endAll(fate.id);
      request.log.warn({ accountId, ...removed, sessionsEnded, by: user.email }, 'second factors reset from the admin page');
      setFlash(reply, `The second factors of ${fate.email} are reset: its password alone signs in.`);
      return seeOther(reply, `/admin/accounts/${encodeURIComponent(accountId)}`);
    }
    if (action !== 'disable' && action !== 'enable' && action !== 'delete') throw new ProblemError('not_found', 'There is nothing here.');
    try {
      if (action === 'delete') {
        const deleted = await ctx.admin.deleteAccount(user, accountId);
        request.log.warn({ accountId, workspacesDeleted: deleted.workspacesDeleted, by: user.email }, 'account deleted from the admin page');
        const workspaces = `${deleted.workspacesDeleted} ${deleted.workspacesDeleted === 1 ? 'workspace' : 'workspaces'}`;
        setFlash(reply, `${deleted.email} was deleted, with the ${workspaces} it alone owned.`);
        return seeOther(reply, '/admin#accounts');
      }
      const changed = await ctx.admin.setAccountDisabled(user, accountId, action === 'disable');
      if (changed.changed) request.log.warn({ accountId, by: user.email }, `account ${action}d from the admin page`);
      const now = action === 'disable' ? 'disabled: it cannot log in and its API tokens are refused' : 'enabled again: it can log in';
      setFlash(reply, changed.changed ? `${changed.email} is ${now}.` : `${changed.email} was already ${action}d; nothing changed.`);
      return seeOther(reply, `/admin/accounts/${encodeURIComponent(accountId)}`);
    } catch (error) {
      if (error instanceof ProblemError && error.code === 'conflict') {
        setFlash(reply, error.detail);
        return seeOther(reply, '/admin#accounts');
      }
      throw error;
    }
  });

  /** The account's fate, or null (with a flash) for the admin's own account. */
  async function accountFateOrBack(accountId: string, user: { isAdmin: number }) {
    try {
      return await ctx.admin.accountFate(user, accountId);
    } catch (error) {
      if (error instanceof ProblemError && error.code === 'conflict') return null;
      throw error;
    }
  }

  app.post<{ Params: { workspaceId: string }; Body: { plan?: string; back?: string } }>(
    '/admin/workspaces/:workspaceId/plan',
    { preHandler },
    async (request, reply) => {
      const back = adminAddress(request.body?.back);
      try {
        const changed = await ctx.admin.changePlan(accountOf(request).user, request.params.workspaceId, String(request.body?.plan ?? ''));
        setFlash(reply, planMessage(changed, ctx.plans.team));
        return seeOther(reply, back);
      } catch (error) {
        if (error instanceof ProblemError && error.code === 'not_found') throw error;
        const message = Object.values(fieldErrors(error))[0] ?? 'The plan could not be changed.';
        const cursors = cursorsOf(Object.fromEntries(new URL(back, 'http://localhost').searchParams));
        return adminPage(request, reply, cursors, { workspaceId: request.params.workspaceId, message }, 400);
      }
    },
  );

  async function adminPage(
    request: FastifyRequest,
    reply: FastifyReply,
    cursors: Cursors,
    planError?: { workspaceId: string; message: string },
    status = 200,
    settingErrors: SettingErrors = {},
  ) {
    const { user } = accountOf(request);
    const accountsAfter = cursors.accounts === undefined ? null : ctx.cursors.decode('admin-accounts', cursors.accounts);
    const workspacesAfter = cursors.workspaces === undefined ? null : ctx.cursors.decode('admin-workspaces', cursors.workspaces);
    const [frame, accounts, workspaces, deliveries, health] = await Promise.all([
      frameFor(request, reply, ctx, { section: 'admin' }),
      ctx.admin.listAccounts(user, { limit: PAGE_SIZE, after: accountsAfter }),
      ctx.admin.listWorkspaces(user, { limit: PAGE_SIZE, after: workspacesAfter }),
      ctx.deliveryPause.status(),
      ctx.admin.instanceHealth(user),
    ]);
    const link = (list: 'accounts' | 'workspaces', last: { createdAt: number; id: string } | undefined) => {
      if (!last) return null;
      const query = new URLSearchParams({ ...cursors, [list]: ctx.cursors.encode(`admin-${list}`, last) });
      return `/admin?${query}`;
    };
    const next = {
      accounts: accounts.hasMore ? link('accounts', accounts.rows.at(-1)) : null,
      workspaces: workspaces.hasMore ? link('workspaces', workspaces.rows.at(-1)) : null,
    };
    const query = new URLSearchParams({ ...cursors }).toString();
    const back = `/admin${query ? `?${query}` : ''}`;
    const mailCheck = { setup: mail.setup(), result: takeMailTestResult(request, reply) };
    return sendPage(
      reply,
      AdminPage({
        frame,
        accounts: accounts.rows,
        workspaces: workspaces.rows,
        next,
        back,
        planError,
        mail: mailCheck,
        deliveries,
        health,
        settings: ctx.admin.settings(user),
        settingErrors,
      }),
      status,
    );
  }
}

/** The two lists' cursors from a query, ignoring anything else in it. */
function cursorsOf(query: Record<string, unknown>): Cursors {
  const cursors: Cursors = {};
  if (typeof query.accounts === 'string') cursors.accounts = query.accounts;
  if (typeof query.workspaces === 'string') cursors.workspaces = query.workspaces;
  return cursors;
}

/** Where a plan change returns to: the admin page it came from (with its cursors), never elsewhere. */
function adminAddress(back: unknown): string {
  const path = safeNext(back);
  return path === '/admin' || path.startsWith('/admin?') ? path : '/admin';
}

/** "Plan of "Acme" changed to Upgraded (Dealify); 3 held submissions released." */
function planMessage(changed: { name: string; plan: string; previousPlan: string; released: number }, team: boolean): string {
  if (changed.plan === changed.previousPlan) return `"${changed.name}" is already on ${planLabel(changed.plan)}; nothing changed.`;
  const released = `${changed.released} held ${changed.released === 1 ? 'submission' : 'submissions'} released`;
  // in team mode the owners are not emailed (services/workspaces.ts setPlan)
  return `Plan of "${changed.name}" changed to ${planLabel(changed.plan)}; ${released}${team ? '' : '; the owners are told by email'}.`;
}
