import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import type { ListedWorkspace, Workspace } from '../services/workspaces.js';
import type { FrameWorkspace } from './views/layout.js';
import { outboxDir } from '../mail/transport.js';
import { takeFlash } from './flash.js';
import { accountOf, csrfUserInfo } from './session.js';
import type { Frame, Section } from './views/layout.js';

const LAST_WORKSPACE_COOKIE = 'fg_workspace';
// The switcher lists this many; an account in more reaches the rest from the workspaces page.
const SWITCHER_LIMIT = 100;

/** A fresh CSRF token for the page's forms, tied to the browser's session (or to no session on the login pages). */
export function csrfToken(request: FastifyRequest, reply: FastifyReply): string {
  return reply.generateCsrf({ userInfo: csrfUserInfo(request) });
}

/**
 * What the layout needs for a page behind the login: the account, its workspaces, the current one
 * (the page's, else the one last visited, else the first), a CSRF token and the flash message.
 * A workspace the account does not belong to is `not_found`, whether or not it exists.
 */
export async function frameFor(
  request: FastifyRequest,
  reply: FastifyReply,
  ctx: AppContext,
  options: { workspaceId?: string; workspace?: Workspace; section?: Section } = {},
): Promise<Frame> {
  const listed = await switcherWorkspaces(request, ctx);
  const workspace = options.workspace ?? (options.workspaceId ? await memberWorkspace(request, ctx, listed, options.workspaceId) : undefined);
  return frameOf(request, reply, ctx, listed, { workspace, section: options.section });
}

/** The switcher's workspaces, and (for the instance admin) the delivery switch's cached reading (every 2 s at most). */
async function switcherWorkspaces(request: FastifyRequest, ctx: AppContext): Promise<Switcher> {
  const { user } = accountOf(request);
  const [listed, deliveries] = await Promise.all([
    ctx.workspaces.listForUser(user.id, { limit: SWITCHER_LIMIT, after: null }),
    user.isAdmin === 1 ? ctx.deliverySwitch.read() : null,
  ]);
  return { rows: listed.rows, deliveries };
}

type Switcher = { rows: ListedWorkspace[]; deliveries: Awaited<ReturnType<AppContext['deliverySwitch']['read']>> | null };

/**
 * The workspace if the account belongs to it (`not_found` otherwise): found in the switcher's list
 * when it is there, which spares a round trip, else looked up (an account in more than the list holds).
 */
async function memberWorkspace(request: FastifyRequest, ctx: AppContext, listed: Switcher, workspaceId: string): Promise<Workspace> {
  const found = listed.rows.find((w) => w.id === workspaceId);
  if (!found) return ctx.workspaces.getForMember(accountOf(request).user.id, workspaceId);
  const { role: _role, ownerEmail: _ownerEmail, ...workspace } = found;
  return workspace;
}

function frameOf(
  request: FastifyRequest,
  reply: FastifyReply,
  ctx: AppContext,
  listed: Switcher,
  options: { workspace?: Workspace; section?: Section },
): Frame {
  const { user } = accountOf(request);
  const isAdmin = user.isAdmin === 1;
  const { deliveries } = listed;
  const workspaces = listed.rows.map((w) => switcherEntry(w, user.id, w.ownerEmail));
  let current: Frame['current'] = null;
  if (options.workspace) {
    const workspace = options.workspace;
    current = workspaces.find((w) => w.id === workspace.id) ?? switcherEntry(workspace, user.id, null);
    if (request.cookies[LAST_WORKSPACE_COOKIE] !== workspace.id) {
      reply.setCookie(LAST_WORKSPACE_COOKIE, workspace.id, {
        path: '/',
        httpOnly: true,
        sameSite: 'lax',
        secure: request.protocol === 'https',
        maxAge: 31_536_000,
      });
    }
  } else {
    const last = request.cookies[LAST_WORKSPACE_COOKIE];
    current = workspaces.find((w) => w.id === last) ?? workspaces[0] ?? null;
  }
  if (current && !workspaces.some((w) => w.id === current.id)) workspaces.push(current);
  return {
    csrf: csrfToken(request, reply),
    flash: takeFlash(request, reply),
    account: { email: user.email, isAdmin: user.isAdmin === 1 },
    // only the instance admin can set FORMGATE_SMTP_URL; no one else is told where the files are
    unsentMail: isAdmin && !ctx.config.smtpUrl ? { folder: outboxDir(ctx.config) } : null,
    deliveriesPaused: deliveries?.paused ? { source: deliveries.source, pause: deliveries.pause } : null,
    workspaces,
    current,
    section: options.section,
    plans: ctx.plans,
  };
}

/** A workspace as the switcher names it: with whose it is and its plan, since two may share a name. */
function switcherEntry(workspace: Workspace, userId: string, ownerEmail: string | null): FrameWorkspace {
  return { id: workspace.id, name: workspace.name, plan: workspace.plan, owner: workspace.ownerId === userId ? 'you' : ownerEmail };
}

/** A workspace's page: the workspace (`not_found` unless the account belongs to it) and the frame around it, looked up once. */
export async function workspaceFrame(
  request: FastifyRequest,
  reply: FastifyReply,
  ctx: AppContext,
  workspaceId: string,
  section: Section,
): Promise<{ frame: Frame; workspace: Workspace }> {
  const listed = await switcherWorkspaces(request, ctx);
  const workspace = await memberWorkspace(request, ctx, listed, workspaceId);
  return { frame: frameOf(request, reply, ctx, listed, { workspace, section }), workspace };
}

/** The workspace the dashboard opens on: the one last visited, if the account still belongs to it. */
export function lastWorkspaceId(request: FastifyRequest): string | undefined {
  return request.cookies[LAST_WORKSPACE_COOKIE];
}
