import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import type { AppContext } from '../../context.js';
import type { Template, TemplateKind } from '../../services/templates.js';
import { ProblemError } from '../../errors.js';
import { MAX_TEMPLATE_CHARS } from '../../mail/template-engine.js';
import { placeholderFor } from '../../mail/template-placeholders.js';
import { SAMPLE_DATA } from '../../services/templates.js';
import { setFlash } from '../flash.js';
import { formFrame } from '../form-frame.js';
import { seeOther, sendPage } from '../render.js';
import { accountOf, requireAccount } from '../session.js';
import { locateTemplateError, type TemplateError } from '../template-errors.js';
import { starterTemplate } from '../template-starters.js';
import { TestEmailLimit } from '../test-email-limit.js';
import { formPath } from '../views/form-layout.js';
import { DeleteTemplatePage } from '../views/template-delete-page.js';
import { type Placeholder, TemplateEditorPage, type TemplateEditorProps } from '../views/template-editor-page.js';
import { EmailPreviewDocument, PreviewProblemsDocument } from '../views/template-preview.js';
import { type TemplateState, TemplatesPage, templatePath } from '../views/templates-page.js';
import { queuedMailWords } from '../mail-words.js';

type FormParams = { Params: { formId: string } };
type KindParams = { Params: { formId: string; kind: string } };
type CodeBody = { Body: { code?: unknown } | undefined };

// A template is up to 262,144 characters; a form post spells most of HTML's and Handlebars'
// punctuation as %XX (three bytes), and UTF-8 takes up to four bytes a character.
const CODE_BODY_LIMIT = MAX_TEMPLATE_CHARS * 12 + 4096;
// The preview is shown in a frame of the dashboard only, and runs nothing: no script, no request
// but images, no forms, no plugins (sandbox without allow-*).
const PREVIEW_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data: https:; frame-ancestors 'self'; base-uri 'none'; form-action 'none'; sandbox";

function kindOf(value: string): TemplateKind {
  if (value === 'notification' || value === 'autoresponder') return value;
  throw new ProblemError('not_found', `There is no ${value} template.`);
}

function stateOf(row: Template | undefined): TemplateState | null {
  if (!row) return null;
  return { updatedAt: row.updatedAt, paused: row.paused === 1, pausedReasons: row.pausedReasons ? (JSON.parse(row.pausedReasons) as string[]) : [] };
}

/** The code a form posted: line ends as typed (browsers send a textarea's as CRLF). */
function postedCode(body: CodeBody['Body']): string {
  return typeof body?.code === 'string' ? body.code.replace(/\r\n/g, '\n') : '';
}

function placeholders(paths: string[][]): Placeholder[] {
  return paths.flatMap((path) => {
    const code = placeholderFor(path);
    return code ? [{ code }] : [];
  });
}

/** The template pages of a form: the two kinds and their state, an editor for each with a live preview, a test to oneself, delete. */
export function registerTemplateRoutes(app: FastifyInstance, ctx: AppContext, redis: Redis | null): void {
  const testLimit = new TestEmailLimit(redis);

  async function editorPage(
    request: FastifyRequest<KindParams>,
    reply: FastifyReply,
    posted?: { code: string; errors?: TemplateError[]; alert?: string; status: number },
  ) {
    const { user } = accountOf(request);
    const { formId } = request.params;
    const kind = kindOf(request.params.kind);
    const { frame, form } = await formFrame(request, reply, ctx, formId);
    const [templates, paths] = await Promise.all([ctx.templates.templatesOf(user.id, formId), ctx.templates.fieldPathsOf(user.id, formId)]);
    const stored = templates[kind];
    const sample = paths.length === 0;
    const props: TemplateEditorProps = {
      frame,
      form,
      kind,
      code: posted?.code ?? stored?.code ?? starterTemplate(kind),
      stored: stateOf(stored),
      fields: placeholders(sample ? Object.keys(SAMPLE_DATA).map((name) => [name]) : paths),
      sample,
      upgraded: ctx.plans.isUpgraded(form.plan),
      vouched: await ctx.workspaces.vouchedFor(form.workspaceId),
      errors: posted?.errors,
      alert: posted?.alert,
    };
    return sendPage(reply, TemplateEditorPage(props), posted?.status ?? 200);
  }

  /** The preview document, with a CSP of its own that lets the dashboard (only) frame it. */
  function sendPreview(reply: FastifyReply, page: ReturnType<typeof EmailPreviewDocument>, status: number) {
    reply.header('content-security-policy', PREVIEW_CSP).header('x-frame-options', 'SAMEORIGIN');
    return sendPage(reply, page, status);
  }

  async function preview(request: FastifyRequest<KindParams>, reply: FastifyReply, draft: string | undefined) {
    const kind = kindOf(request.params.kind);
    const { user } = accountOf(request);
    const { formId } = request.params;
    try {
      // no autoresponder yet: the editor holds its starting point, and so does the preview
      let code = draft;
      if (code === undefined && kind === 'autoresponder' && !(await ctx.templates.templatesOf(user.id, formId)).autoresponder) code = starterTemplate(kind);
      const email = await ctx.templates.previewEmail(user.id, formId, kind, code);
      return sendPreview(reply, EmailPreviewDocument({ preview: email, draft: draft !== undefined, kind }), 200);
    } catch (error) {
      if (!(error instanceof ProblemError) || (error.code !== 'template_invalid' && error.code !== 'validation_error')) throw error;
      const entries = Array.isArray(error.extra.errors) ? (error.extra.errors as string[]) : [];
      const problems = entries.map((entry) => locateTemplateError(entry.replace(/^data: /, '')));
      return sendPreview(reply, PreviewProblemsDocument({ problems, detail: error.detail }), 400);
    }
  }

  app.get<FormParams>('/forms/:formId/templates', { preHandler: requireAccount }, async (request, reply) => {
    const { frame, form } = await formFrame(request, reply, ctx, request.params.formId);
    const templates = await ctx.templates.templatesOf(accountOf(request).user.id, form.id);
    const page = TemplatesPage({
      frame,
      form,
      notification: stateOf(templates.notification),
      autoresponder: stateOf(templates.autoresponder),
      upgraded: ctx.plans.isUpgraded(form.plan),
      vouched: await ctx.workspaces.vouchedFor(form.workspaceId),
    });
    return sendPage(reply, page);
  });

  app.get<KindParams>('/forms/:formId/templates/:kind', { preHandler: requireAccount }, (request, reply) => editorPage(request, reply));

  app.post<KindParams & CodeBody>('/forms/:formId/templates/:kind', { preHandler: requireAccount, bodyLimit: CODE_BODY_LIMIT }, async (request, reply) => {
    const kind = kindOf(request.params.kind);
    const { formId } = request.params;
    const code = postedCode(request.body);
    let pausedFor: string[];
    try {
      ({ pausedFor } = await ctx.templates.putTemplate(accountOf(request).user.id, formId, kind, code));
    } catch (error) {
      if (error instanceof ProblemError && error.code === 'template_invalid') {
        const errors = ((error.extra.errors as string[] | undefined) ?? []).map(locateTemplateError);
        return editorPage(request, reply, { code, errors, status: 400 });
      }
      if (error instanceof ProblemError && error.code === 'upstream_unavailable') {
        reply.header('retry-after', '30');
        return editorPage(request, reply, { code, alert: error.detail, status: 503 });
      }
      throw error;
    }
    if (pausedFor.length > 0) {
      request.log.info({ formId, kind, reasons: pausedFor }, 'template paused by the content check');
      setFlash(reply, 'Saved, but paused by the content check: the autoresponder sends nothing until you rewrite it. The reasons are below.', 'warning');
    } else {
      setFlash(reply, kind === 'notification' ? 'Notification template saved' : 'Autoresponder saved: it is on');
    }
    return seeOther(reply, templatePath(formId, kind));
  });

  app.get<KindParams>('/forms/:formId/templates/:kind/preview', { preHandler: requireAccount }, (request, reply) => preview(request, reply, undefined));

  app.post<KindParams & CodeBody>('/forms/:formId/templates/:kind/preview', { preHandler: requireAccount, bodyLimit: CODE_BODY_LIMIT }, (request, reply) =>
    preview(request, reply, postedCode(request.body)),
  );

  app.post<KindParams>('/forms/:formId/templates/:kind/test', { preHandler: requireAccount }, async (request, reply) => {
    const kind = kindOf(request.params.kind);
    const { user } = accountOf(request);
    const { formId } = request.params;
    // an outsider is told nothing, and counts nothing
    await ctx.forms.formForMember(user.id, formId);
    const refusal = await testLimit.take(user.id);
    if (refusal) {
      const minutes = Math.max(1, Math.ceil(refusal.retryAfterSeconds / 60));
      setFlash(reply, `No test sent: you have sent 10 tests in the last hour. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`, 'warning');
      return seeOther(reply, templatePath(formId, kind));
    }
    try {
      await ctx.templates.sendTest(user.id, formId, kind, user.email);
      setFlash(
        reply,
        queuedMailWords(ctx.config, { sent: `A test is on its way to ${user.email}`, written: `A test to ${user.email} is written to the mail folder` }),
      );
    } catch (error) {
      if (!(error instanceof ProblemError) || !['template_invalid', 'validation_error', 'not_found'].includes(error.code)) throw error;
      await testLimit.giveBack(user.id);
      setFlash(reply, error.code === 'not_found' ? 'No test sent: save the autoresponder first.' : `No test sent: ${testProblem(error)}`, 'warning');
    }
    return seeOther(reply, templatePath(formId, kind));
  });

  app.get<KindParams>('/forms/:formId/templates/:kind/delete', { preHandler: requireAccount }, async (request, reply) => {
    const kind = kindOf(request.params.kind);
    const { frame, form } = await formFrame(request, reply, ctx, request.params.formId);
    if (!(await ctx.templates.templatesOf(accountOf(request).user.id, form.id))[kind]) {
      setFlash(reply, `There is no ${kind} template to delete`, 'warning');
      return seeOther(reply, templatePath(form.id, kind));
    }
    return sendPage(reply, DeleteTemplatePage({ frame, form, kind }));
  });

  app.post<KindParams>('/forms/:formId/templates/:kind/delete', { preHandler: requireAccount }, async (request, reply) => {
    const kind = kindOf(request.params.kind);
    const { user } = accountOf(request);
    const { formId } = request.params;
    await ctx.forms.formForMember(user.id, formId);
    try {
      await ctx.templates.deleteTemplate(user.id, formId, kind);
      setFlash(
        reply,
        kind === 'notification' ? 'Notification template deleted: notifications use the default layout again' : 'Autoresponder deleted: it is off',
      );
    } catch (error) {
      // a member's form without the template: deleted already (another tab, a teammate)
      if (!(error instanceof ProblemError) || error.code !== 'not_found') throw error;
      setFlash(reply, `There is no ${kind} template to delete`, 'warning');
    }
    return seeOther(reply, formPath(formId, 'templates'));
  });
}

/** Why the stored template could not be sent as a test, in a sentence (the flash holds one line). */
function testProblem(error: ProblemError): string {
  const first = Array.isArray(error.extra.errors) ? String(error.extra.errors[0]).replace(/^data: /, '') : error.detail;
  const located = locateTemplateError(first);
  return `the saved template cannot be rendered (${located.line !== null ? `line ${located.line}: ` : ''}${located.message.replace(/\.$/, '')}).`;
}
