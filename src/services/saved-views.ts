import { sql } from 'kysely';
import type { Database } from '../db/database.js';
import { ProblemError, validationError } from '../errors.js';
import { newId } from '../ids.js';
import type { MarkScope } from './submission-marks.js';
import { listedOf, narrowedBy, type SubmissionFilter } from './submission-search.js';
import { OPEN_CAP } from './triage.js';
import type { WorkspaceService } from './workspaces.js';

/** A member's saved views per workspace: "a few" (issue 41, item 8), so the inbox counts each on every page. */
export const SAVED_VIEWS_MAX = 8;
export const SAVED_VIEW_NAME_MAX = 40;
/** A saved view's query string (the inbox's filter and view) is at most this long: a search is at most 256 characters. */
const QUERY_MAX = 1000;
/** A saved view's count looks at the newest this many submissions of its inbox, whatever its filter: bounded, as the search is. */
export const COUNT_WINDOW = 10_000;

/** A view of an inbox a member saved: its name, the inbox (a form's, or the workspace's: null) and the query string that makes it. */
export interface SavedView {
  id: string;
  name: string;
  formId: string | null;
  query: string;
}

/** How many a view holds: exact, or at least `n` when its inbox has more than COUNT_WINDOW submissions or it reached OPEN_CAP. */
export interface ViewCount {
  n: number;
  atLeast: boolean;
}

/**
 * Saved views of the inbox: each member's own, kept in their membership row (migration 0037), so
 * nobody sees another's and they go with the membership. Another member's view, or a view of a
 * workspace the account is not in, is `not_found`.
 */
export class SavedViewService {
  constructor(
    private readonly database: Database,
    private readonly workspaces: WorkspaceService,
  ) {}

  /** The member's saved views of the workspace, in the order they were saved. */
  async list(userId: string, workspaceId: string): Promise<SavedView[]> {
    const row = await this.database.db
      .selectFrom('workspaceMembers')
      .select('savedViews')
      .where('workspaceId', '=', workspaceId)
      .where('userId', '=', userId)
      .executeTakeFirst();
    if (!row) await this.workspaces.getForMember(userId, workspaceId);
    return parsed(row?.savedViews ?? null);
  }

  /** Saves a view (a name unique in its inbox, without case; at most SAVED_VIEWS_MAX); `validation_failed` otherwise. */
  async save(userId: string, workspaceId: string, input: { name: unknown; formId: string | null; query: string }): Promise<SavedView> {
    const name = typeof input.name === 'string' ? input.name.trim().replace(/\s+/g, ' ') : '';
    if (name === '' || [...name].length > SAVED_VIEW_NAME_MAX)
      throw validationError([`name: must be 1 to ${SAVED_VIEW_NAME_MAX} characters`], 'The view needs a name.');
    if (input.query.length > QUERY_MAX) throw validationError(['query: too long'], 'This view is too long to save.');
    // compare and set: two tabs saving at once each keep their view (the row changed: read again)
    for (let attempt = 0; ; attempt++) {
      const views = await this.list(userId, workspaceId);
      if (views.length >= SAVED_VIEWS_MAX) {
        throw validationError(['name: too many saved views'], `You have ${SAVED_VIEWS_MAX} saved views in this workspace: delete one first.`);
      }
      const folded = name.toLowerCase();
      if (views.some((view) => view.formId === input.formId && view.name.toLowerCase() === folded)) {
        throw validationError(['name: already used'], `A view of this inbox is already called “${name}”.`);
      }
      const view: SavedView = { id: newId(), name, formId: input.formId, query: input.query };
      if (await this.replace(userId, workspaceId, views, [...views, view])) return view;
      if (attempt === 2) throw new ProblemError('conflict', 'The saved views changed meanwhile: try again.');
    }
  }

  /** Deletes one of the member's views; another's, or none, is `not_found`. */
  async remove(userId: string, workspaceId: string, viewId: string): Promise<SavedView> {
    const views = await this.list(userId, workspaceId);
    const gone = views.find((view) => view.id === viewId);
    if (!gone) throw new ProblemError('not_found', `View ${viewId} was not found.`);
    if (
      !(await this.replace(
        userId,
        workspaceId,
        views,
        views.filter((view) => view !== gone),
      ))
    ) {
      throw new ProblemError('conflict', 'The saved views changed meanwhile: try again.');
    }
    return gone;
  }

  /** Writes `next` if the member's views are still `before`; false when another change came first. */
  private async replace(userId: string, workspaceId: string, before: SavedView[], next: SavedView[]): Promise<boolean> {
    const old = before.length === 0 ? null : JSON.stringify(before);
    const result = await this.database.db
      .updateTable('workspaceMembers')
      .set({ savedViews: next.length === 0 ? null : JSON.stringify(next) })
      .where('workspaceId', '=', workspaceId)
      .where('userId', '=', userId)
      .where((eb) => (old === null ? eb('savedViews', 'is', null) : eb('savedViews', '=', old)))
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /**
   * How many submissions of the inbox (the caller checked the account's access) match a view's
   * filter (its search aside): counted among the newest COUNT_WINDOW, up to OPEN_CAP, so that a
   * view costs the same however many submissions its inbox holds.
   */
  async count(scope: MarkScope, filter: SubmissionFilter): Promise<ViewCount> {
    const db = this.database.db;
    const [column, owner] = 'formId' in scope ? (['formId', scope.formId] as const) : (['workspaceId', scope.workspaceId] as const);
    // where the window ends: the COUNT_WINDOW-th newest submission, if there are that many (the listing index answers)
    const edge = await listedOf(db, column, owner)
      .select('submissions.createdAt')
      .orderBy('submissions.createdAt', 'desc')
      .orderBy('submissions.id', 'desc')
      .offset(COUNT_WINDOW - 1)
      .limit(1)
      .executeTakeFirst();
    let matching = narrowedBy(listedOf(db, column, owner), { ...filter, search: undefined });
    if (edge) matching = matching.where('submissions.createdAt', '>=', edge.createdAt);
    const row = await db
      .selectFrom(matching.select(sql.lit(1).as('one')).limit(OPEN_CAP).as('matching'))
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .executeTakeFirst();
    const n = Number(row?.n ?? 0);
    return { n, atLeast: edge !== undefined || n >= OPEN_CAP };
  }
}

/** The stored JSON as views; anything else (never written by this service) is none. */
function parsed(json: string | null): SavedView[] {
  if (json === null) return [];
  try {
    const views = JSON.parse(json) as unknown;
    return Array.isArray(views) ? (views as SavedView[]) : [];
  } catch {
    return [];
  }
}
