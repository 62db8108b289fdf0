import { WEBHOOK_BODY_TEMPLATE_MAX, type WebhookBodyFormat } from '../../domain/webhook-body.js';
import type { BodyPreview, ExampleData } from '../../services/webhook-bodies.js';
import type { FieldErrors } from '../field-errors.js';
import type { TemplateError } from '../template-errors.js';
import { Button, CsrfInput, Panel } from './components.js';
import { formPath } from './form-layout.js';
import { PreviewProblemsDocument, PreviewShell } from './template-preview.js';

/** The frame the preview is posted into (the Preview button's `formtarget`). */
export const WEBHOOK_BODY_PREVIEW_FRAME = 'webhook-body-preview';

/** What the panel holds: the format and template as stored or as just posted, and why a save was refused. */
export interface WebhookBodyPanelProps {
  formId: string;
  csrf: string;
  format: WebhookBodyFormat;
  template: string;
  errors?: FieldErrors;
  /** The form has a webhook URL (the body matters only then). */
  hasWebhook: boolean;
  /** The preview's data: the latest submission or the sample. */
  example: ExampleData['from'];
}

const FORMATS: { value: WebhookBodyFormat; label: string; hint: string }[] = [
  {
    value: 'json',
    label: 'JSON of every field (the default)',
    hint: 'The submission’s fields as one JSON object, as the API gives them: {"name": "…", "email": "…"}.',
  },
  {
    value: 'json-template',
    label: 'JSON written with a template',
    hint: 'The shape a tool expects (Slack, Discord, a CRM). Sent as application/json.',
  },
  {
    value: 'urlencoded-template',
    label: 'Form fields written with a template',
    hint: 'name=value pairs, one per line, for tools that take a form post (Google Forms, older scripts). Sent as application/x-www-form-urlencoded.',
  },
];

/** The starting points offered under the template (docs/webhooks.md, Body templates, has them too). */
const EXAMPLES: { title: string; code: string }[] = [
  { title: 'Slack (incoming webhook) or Mattermost', code: '{\n  "text": "New message from {{data.name}} ({{data.email}}):\\n{{data.message}}"\n}' },
  { title: 'Discord', code: '{\n  "username": "Formgate",\n  "content": "**{{data.name}}** wrote: {{data.message}}"\n}' },
  { title: 'Form fields (Google Forms’ entry IDs)', code: 'entry.1000001={{data.name}}\nentry.1000002={{data.email}}' },
];

/**
 * The webhook's body on the form's Settings page (issue 42, item 5): its format, its template and a
 * preview of the body the webhook would send, with a form of its own (it is saved apart from the
 * Notifications section). The Preview button posts into the frame below without script; with
 * webhook-body.js the preview follows the typing.
 */
export function WebhookBodyPanel({ formId, csrf, format, template, errors, hasWebhook, example }: WebhookBodyPanelProps) {
  const action = `${formPath(formId, 'settings')}/webhook-body`;
  const formatError = errors?.webhookBodyFormat;
  const templateError = errors?.webhookBodyTemplate;
  const id = 'field-webhookBodyTemplate';
  return (
    <Panel title="Webhook body" id="webhook-body">
      {errors && (formatError || templateError || errors.form) && (
        <div class="alert" role="alert" id="webhook-body-problems">
          <p>
            <strong>The webhook body was not saved:</strong> {errors.form ?? 'correct it and save again.'}
          </p>
        </div>
      )}
      <p>
        What each webhook request carries. {hasWebhook ? '' : 'This form has no webhook URL yet: the body matters once it has one. '}
        Every body is signed the same way (see Webhook signing secret below).
      </p>
      <form method="post" action={action} id="webhook-body-form" noValidate>
        <CsrfInput token={csrf} />
        <fieldset
          id="field-webhookBodyFormat"
          aria-describedby={formatError ? 'field-webhookBodyFormat-error' : undefined}
          aria-invalid={formatError ? 'true' : undefined}
        >
          <legend>Body format</legend>
          {FORMATS.map((choice) => (
            <div class="field check" key={choice.value}>
              <input
                id={`webhook-body-${choice.value}`}
                type="radio"
                name="webhookBodyFormat"
                value={choice.value}
                checked={format === choice.value}
                aria-describedby={`webhook-body-${choice.value}-hint`}
              />
              <label for={`webhook-body-${choice.value}`}>{choice.label}</label>
              <p class="hint" id={`webhook-body-${choice.value}-hint`}>
                {choice.hint}
              </p>
            </div>
          ))}
          {formatError && (
            <p class="error" id="field-webhookBodyFormat-error">
              {formatError}
            </p>
          )}
        </fieldset>
        <div class="field">
          <label for={id}>Body template</label>
          <p class="hint" id={`${id}-hint`}>
            {`Used by the two template formats; at most ${WEBHOOK_BODY_TEMPLATE_MAX} characters. `}
            <code>{'{{data.name}}'}</code> prints the field <code>name</code>: inside a JSON string ("…") its text, escaped for JSON; outside one, the value
            itself as JSON (<code>{'"tags": {{data.tags}}'}</code> gives a list, a missing field <code>null</code>). In form fields, each value is encoded for
            you. Blocks <code>if</code>, <code>unless</code>, <code>each</code> and <code>with</code> work. The template must make a valid body with the
            preview’s data to be saved.
          </p>
          <textarea
            id={id}
            name="webhookBodyTemplate"
            class="code-editor body-template-editor"
            rows={10}
            spellcheck={false}
            autocomplete="off"
            autocapitalize="off"
            aria-invalid={templateError ? 'true' : undefined}
            aria-describedby={templateError ? `${id}-hint ${id}-error` : `${id}-hint`}
          >
            {template}
          </textarea>
          {templateError && (
            <p class="error" id={`${id}-error`}>
              {templateError}
            </p>
          )}
        </div>
        <details class="body-template-examples">
          <summary>Examples to start from</summary>
          {EXAMPLES.map((item) => (
            <div key={item.title}>
              <h3 class="body-template-example-title">{item.title}</h3>
              <pre class="body-template-example">{item.code}</pre>
            </div>
          ))}
        </details>
        <div class="actions">
          <button type="submit">Save webhook body</button>
          <Button type="submit" variant="secondary" id="webhook-body-refresh" formAction={`${action}/preview`} formTarget={WEBHOOK_BODY_PREVIEW_FRAME}>
            Preview
          </Button>
        </div>
      </form>
      <h3 class="body-preview-heading">Preview</h3>
      <p class="hint">
        The body as the webhook would send it, filled in with{' '}
        {example === 'latest' ? 'the form’s latest submission' : 'sample data (the form has no submission yet)'}. It follows your typing; without JavaScript,
        press <strong>Preview</strong>.
      </p>
      <iframe name={WEBHOOK_BODY_PREVIEW_FRAME} title="Preview of the webhook body" sandbox="" src={`${action}/preview`} class="body-preview-frame" />
    </Panel>
  );
}

/** The body the webhook would send (its content type and bytes), or why the template cannot make one. */
export function WebhookBodyPreviewDocument({ preview, problems }: { preview: BodyPreview; problems: TemplateError[] }) {
  const filled = preview.example.from === 'latest' ? 'the form’s latest submission' : 'sample data';
  if (!preview.ok) {
    return <PreviewProblemsDocument title="The webhook body cannot be made" detail={`With ${filled}, the template gives no valid body:`} problems={problems} />;
  }
  return (
    <PreviewShell title="Preview of the webhook body">
      <dl class="headers">
        <dt>Content-Type</dt>
        <dd>{preview.contentType}</dd>
      </dl>
      <p class="note">{`Filled in with ${filled}; the bytes below are what is signed and sent.`}</p>
      <pre class="problems">{preview.body}</pre>
    </PreviewShell>
  );
}
