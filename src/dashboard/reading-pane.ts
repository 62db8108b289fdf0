import type { AppContext } from '../context.js';
import { ProblemError } from '../errors.js';
import type { MarkScope } from '../services/submission-marks.js';
import type { ReadingPaneData } from './views/reading-pane.js';
import type { Backs } from './views/submission-parts.js';

/** The address of `list` (a page of an inbox, its filter and cursor) with submission `id` open in its pane. */
export function paneUrl(list: string, id: string): string {
  return `${list}${list.includes('?') ? '&' : '?'}submission=${encodeURIComponent(id)}`;
}

/**
 * Where the pane's links lead: the newer and older submission on this page of the list, and where its
 * changes come back to: the pane, the next one (older, else newer, else the list) once it leaves the
 * view, or the list without the pane.
 */
export function paneLinks(list: string, ids: string[], id: string): { newer: string | null; older: string | null; backs: Backs } {
  const at = ids.indexOf(id);
  const newer = at > 0 ? paneUrl(list, ids[at - 1]!) : null;
  const older = at >= 0 && at < ids.length - 1 ? paneUrl(list, ids[at + 1]!) : null;
  return { newer, older, backs: { here: paneUrl(list, id), onward: older ?? newer ?? list, list } };
}

/** The submission an inbox's address opens beside its list (`?submission=<id>`, issue 41, item 2), if any. */
export function paneIdOf(query: Record<string, unknown>): string | null {
  const id = query.submission;
  return typeof id === 'string' && id !== '' ? id : null;
}

/**
 * What the reading pane shows of one submission of the inbox's scope (the form, or the workspace),
 * marked read as opening its page marks it. Another scope's submission, or one the account cannot
 * see, is `not_found`: the pane is the inbox's, not a way round it. A submission that is no longer
 * in the inbox (spam, held) is `moved`: its own page shows it with its folder.
 */
export async function loadPane(ctx: AppContext, userId: string, id: string, scope: MarkScope): Promise<ReadingPaneData | 'moved'> {
  const submission = await ctx.submissions.getSubmission(userId, id);
  const inScope = 'formId' in scope ? submission.formId === scope.formId : submission.workspaceId === scope.workspaceId;
  if (!inScope) throw new ProblemError('not_found', `Submission ${id} was not found.`);
  if (submission.status !== 'accepted') return 'moved';
  await ctx.submissionMarks.markRead(userId, submission.id);
  const [files, details, triage, carried] = await Promise.all([
    ctx.submissionFiles.filesOf([submission.id]),
    ctx.submissionMarks.detailsOf(submission.id),
    ctx.triage.get(userId, submission.id),
    ctx.labels.labelsOf([submission.id]),
  ]);
  return { submission, files: files.get(submission.id) ?? [], ...details, triage, carried: carried.get(submission.id) ?? [] };
}
