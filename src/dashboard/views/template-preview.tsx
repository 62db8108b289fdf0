import type { EmailPreview } from '../../services/templates.js';
import type { TemplateError } from '../template-errors.js';
import { Time } from './components.js';

// NOTE: this document is served with a CSP of its own (no script, inline style only) inside a
// sandboxed frame; the email itself sits in a frame of its own below the headers, so that its
// styles and the headers' never meet.
const STYLE = `
:root { color-scheme: light dark; --bg: #ffffff; --text: #1d2330; --muted: #5a6475; --border: #d5dae2; --danger: #b42318; }
@media (prefers-color-scheme: dark) { :root { --bg: #1b2029; --text: #e6e9ef; --muted: #a3acbb; --border: #343b48; --danger: #ff8a80; } }
html, body { height: 100%; margin: 0; }
body { display: flex; flex-direction: column; background: var(--bg); color: var(--text); font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
.headers { margin: 0; padding: 10px 14px; border-bottom: 1px solid var(--border); display: grid; grid-template-columns: auto 1fr; gap: 2px 12px; }
.headers dt { color: var(--muted); }
.headers dd { margin: 0; overflow-wrap: anywhere; }
.note { margin: 0; padding: 6px 14px; color: var(--muted); font-size: 13px; border-bottom: 1px solid var(--border); }
iframe { flex: 1 1 auto; min-height: 12rem; width: 100%; border: 0; background: #ffffff; }
details { border-top: 1px solid var(--border); padding: 8px 14px; max-height: 45%; overflow: auto; flex: 0 0 auto; }
summary { cursor: pointer; font-weight: 600; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; font: 13px/1.45 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; margin: 8px 0 0; }
.problems { padding: 14px; }
.problems h1 { font-size: 16px; margin: 0 0 8px; color: var(--danger); }
.problems li { margin-bottom: 4px; }
`;

export function PreviewShell({ title, children }: { title: string; children: preact.ComponentChildren }) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="color-scheme" content="light dark" />
        <title>{title}</title>
        {/* the constant STYLE of this file, never data: set as HTML so that its quotes and ">" stay as written */}
        <style dangerouslySetInnerHTML={{ __html: STYLE }} />
      </head>
      <body>{children}</body>
    </html>
  );
}

/**
 * The email as it would be sent: its headers, what filled it in, the HTML (in a frame of its own,
 * sandboxed), and its plain-text alternative.
 */
export function EmailPreviewDocument({ preview, draft, kind }: { preview: EmailPreview; draft: boolean; kind: 'notification' | 'autoresponder' }) {
  const to = preview.to ?? (kind === 'notification' ? 'nobody yet (the form has no notification recipients)' : 'nobody: the submission has no email address');
  return (
    <PreviewShell title={`Preview: ${preview.subject}`}>
      <dl class="headers">
        <dt>Subject</dt>
        <dd>{preview.subject}</dd>
        <dt>To</dt>
        <dd>
          {to}
          {kind === 'notification' && preview.to ? ' (each recipient gets a message of their own)' : ''}
        </dd>
        {preview.replyTo && (
          <>
            <dt>Reply-To</dt>
            <dd>{preview.replyTo}</dd>
          </>
        )}
      </dl>
      <p class="note">
        {draft ? 'Unsaved changes, ' : preview.layout === 'default' ? 'The default layout, ' : 'The saved template, '}
        filled in with{' '}
        {preview.submissionAt === null ? (
          'sample data.'
        ) : (
          <>
            the latest submission (<Time ms={preview.submissionAt} />
            ).
          </>
        )}
      </p>
      <iframe title="The email" sandbox="" srcdoc={preview.html} />
      <details>
        <summary>Plain-text alternative</summary>
        <pre>{preview.text}</pre>
      </details>
    </PreviewShell>
  );
}

/** What stops the template from rendering, each problem at its line. */
export function PreviewProblemsDocument({
  problems,
  detail,
  title = 'The template cannot be rendered',
}: {
  problems: TemplateError[];
  detail: string;
  title?: string;
}) {
  return (
    <PreviewShell title={title}>
      <div class="problems" role="alert">
        <h1>{title}</h1>
        <p>{detail}</p>
        <ul>
          {problems.map((problem) => (
            <li key={`${problem.line}:${problem.message}`}>
              {problem.line !== null ? `Line ${problem.line}: ` : ''}
              {problem.message}
            </li>
          ))}
        </ul>
      </div>
    </PreviewShell>
  );
}
