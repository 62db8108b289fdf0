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
import { AdminPage } from '../views/admin-page.js';

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

  app.post<{ Params: { workspaceId: string }; Body: { plan?: string; back?: string } }>(
    '/admin/workspaces/:workspaceId/plan',
    { preHandler },
    async (request, reply) => {
      const back = adminAddress(request.body?.back);
      try {
        const changed = await ctx.admin.changePlan(accountOf(request).user, request.params.workspaceId, String(request.body?.plan ?? ''));
        setFlash(reply, planMessage(changed));
        return seeOther(reply, back);
      } catch (error) {
        if (error instanceof ProblemError && error.code === 'not_found') throw error;
        const message = Object.values(fieldErrors(error))[0] ?? 'The plan could not be changed.';
        const cursors = cursorsOf(Object.fromEntries(new URL(back, 'http://localhost').searchParams));
        return adminPage(request, reply, cursors, { workspaceId: request.params.workspaceId, message }, 400);
      }
    },
  );

  async function adminPage(request: FastifyRequest, reply: FastifyReply, cursors: Cursors, planError?: { workspaceId: string; message: string }, status = 200) {
    const { user } = accountOf(request);
    const accountsAfter = cursors.accounts === undefined ? null : ctx.cursors.decode('admin-accounts', cursors.accounts);
    const workspacesAfter = cursors.workspaces === undefined ? null : ctx.cursors.decode('admin-workspaces', cursors.workspaces);
    const [frame, accounts, workspaces, deliveries] = await Promise.all([
      frameFor(request, reply, ctx, { section: 'admin' }),
      ctx.admin.listAccounts(user, { limit: PAGE_SIZE, after: accountsAfter }),
      ctx.admin.listWorkspaces(user, { limit: PAGE_SIZE, after: workspacesAfter }),
      ctx.deliveryPause.status(),
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
      AdminPage({ frame, accounts: accounts.rows, workspaces: workspaces.rows, next, back, planError, mail: mailCheck, deliveries }),
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

/** "Plan of "Acme" changed to DEALIFY; 3 held submissions released." */
function planMessage(changed: { name: string; plan: string; previousPlan: string; released: number }): string {
  if (changed.plan === changed.previousPlan) return `"${changed.name}" is already on ${changed.plan}; nothing changed.`;
  const released = `${changed.released} held ${changed.released === 1 ? 'submission' : 'submissions'} released`;
  return `Plan of "${changed.name}" changed to ${changed.plan}; ${released}; the owners are told by email.`;
}
