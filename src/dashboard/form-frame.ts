import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import type { Form } from '../services/forms.js';
import type { Plan } from '../domain/plans.js';
import type { FormStateName } from '../services/form-behaviour.js';
import { frameFor } from './frame.js';
import { accountOf } from './session.js';
import type { Frame } from './views/layout.js';

export type FormWithPlan = Form & { plan: Plan; state?: FormStateName };

/**
 * A form's page: the form with its workspace's plan (`not_found` unless the account belongs to its
 * workspace, whether or not it exists) and the frame around it, its workspace the current one.
 */
export async function formFrame(
  request: FastifyRequest,
  reply: FastifyReply,
  ctx: AppContext,
  formId: string,
): Promise<{ frame: Frame; form: FormWithPlan & { unread: number; spam: number } }> {
  const form = await ctx.forms.formForMember(accountOf(request).user.id, formId);
  // the Submissions tab says how many are unread (a count that stops at UNREAD_CAP), the Spam tab how
  // many are in the folder (one that stops at SPAM_COUNT_CAP); the header's badge says whether it
  // takes submissions (a query only for a capped form)
  const [frame, unread, spam, states] = await Promise.all([
    frameFor(request, reply, ctx, { workspaceId: form.workspaceId, section: 'forms' }),
    ctx.submissionMarks.unreadCounts([form.id]),
    ctx.submissions.countSpam(form.id),
    ctx.forms.states([form]),
  ]);
  return { frame, form: { ...form, unread: unread.get(form.id) ?? 0, spam, state: states.get(form.id) ?? 'open' } };
}
