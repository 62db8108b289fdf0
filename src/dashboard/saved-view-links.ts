import type { AppContext } from '../context.js';
import { OPEN_CAP } from '../services/triage.js';
import type { MarkScope } from '../services/submission-marks.js';
import type { SavedView, ViewCount } from '../services/saved-views.js';
import { readFilter } from './date-range.js';
import { readTriageView } from './triage-view.js';

/** A saved view as the inbox's views show it: its link, its count, and whether it is the one shown. */
export interface SavedViewLink {
  id: string;
  name: string;
  href: string;
  /** "12", "999+", "12+" (at least: its inbox has more than the count looks at); '' for a view with a search, which is not counted. */
  count: string;
  current: boolean;
}

/** The parameters that make a view (its filter and triage), as one string in a fixed order: two spellings of one view compare equal. */
export function viewQuery(params: Record<string, string | undefined>): string {
  const entries = Object.entries(params).filter((entry): entry is [string, string] => Boolean(entry[1]) && VIEW_PARAMS.has(entry[0]));
  return new URLSearchParams(entries.sort(([a], [b]) => a.localeCompare(b))).toString();
}
const VIEW_PARAMS = new Set(['search', 'from', 'to', 'state', 'assignee', 'label', 'unread', 'files', 'form']);

/** Whether a query string reads as a view of the inbox (the same reading as its address): what may be saved. */
export function readableView(query: string, userId: string): boolean {
  const params = Object.fromEntries(new URLSearchParams(query));
  try {
    readTriageView(params, userId);
  } catch {
    return false;
  }
  return Object.keys(readFilter(params).errors).length === 0;
}

/**
 * The member's saved views of one inbox (`formId`: a form's; null: the workspace's), each counted
 * (services/saved-views.ts: bounded however large the inbox) and marked when it is the one shown.
 */
export async function savedViewLinks(
  ctx: AppContext,
  userId: string,
  workspaceId: string,
  inbox: { path: string; formId: string | null; scope: MarkScope; shown: string },
): Promise<SavedViewLink[]> {
  const views = (await ctx.savedViews.list(userId, workspaceId)).filter((view) => view.formId === inbox.formId);
  return Promise.all(views.map(async (view) => linkOf(ctx, userId, view, inbox)));
}

async function linkOf(ctx: AppContext, userId: string, view: SavedView, inbox: { path: string; scope: MarkScope; shown: string }): Promise<SavedViewLink> {
  const params = Object.fromEntries(new URLSearchParams(view.query));
  const link = { id: view.id, name: view.name, href: view.query ? `${inbox.path}?${view.query}` : inbox.path, current: view.query === inbox.shown };
  if (params.search || !readableView(view.query, userId)) return { ...link, count: '' };
  const { filter: fields } = readFilter(params);
  const { filter: triage } = readTriageView(params, userId);
  const scope = params.form ? { formId: params.form } : inbox.scope;
  return { ...link, count: counted(await ctx.savedViews.count(scope, { ...fields, ...triage })) };
}

const counted = ({ n, atLeast }: ViewCount) => (n >= OPEN_CAP ? `${OPEN_CAP - 1}+` : atLeast ? `${n}+` : String(n));
