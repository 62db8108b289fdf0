import type { TemplateKind } from '../services/templates.js';

// What the editor holds before a template is saved: a working starting point, not an empty box.
const NOTIFICATION = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>New submission</title>
</head>
<body style="margin:0;padding:24px;background:#f9fafb;font-family:-apple-system,Segoe UI,Roboto,Helvetica,Arial,sans-serif;">
<div style="max-width:640px;margin:0 auto;background:#ffffff;border:1px solid #e5e7eb;border-radius:8px;padding:24px;">
  <h1 style="margin:0 0 16px;font-size:18px;color:#111827;">New submission</h1>
  <table style="width:100%;border-collapse:collapse;font-size:14px;">
    <tbody>
    {{#each data}}
    <tr>
      <th scope="row" style="padding:8px 12px;border-bottom:1px solid #e5e7eb;vertical-align:top;text-align:left;color:#374151;white-space:nowrap;">{{@key}}</th>
      <td style="padding:8px 12px;border-bottom:1px solid #e5e7eb;vertical-align:top;color:#111827;white-space:pre-line;">{{this}}</td>
    </tr>
    {{/each}}
    </tbody>
  </table>
  {{#if files}}
  <p style="margin:16px 0 0;font-size:14px;color:#374151;">Download the files from the submission’s page (you will be asked to log in):</p>
  <ul style="margin:8px 0 0;padding-left:20px;font-size:14px;color:#111827;">
    {{#each files}}<li><a href="{{url}}" style="color:#1d4ed8;">{{name}}</a> ({{sizeText}}, {{type}})</li>{{/each}}
  </ul>
  {{/if}}
  <p style="margin:16px 0 0;font-size:14px;"><a href="{{submissionUrl}}" style="color:#1d4ed8;">Open in Formgate</a></p>
</div>
</body>
</html>
`;

const AUTORESPONDER = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>We received your message</title>
</head>
<body style="margin:0;padding:24px;font-family:-apple-system,Segoe UI,Roboto,Helvetica,Arial,sans-serif;font-size:15px;line-height:1.5;color:#111827;">
  <p>Hello{{#if data.name}} {{data.name}}{{/if}},</p>
  <p>Thank you for writing to us. We have received your message and will answer as soon as we can.</p>
  {{#if data.message}}
  <p style="color:#4b5563;">Your message:</p>
  <blockquote style="margin:0;padding:8px 12px;border-left:3px solid #e5e7eb;white-space:pre-line;">{{data.message}}</blockquote>
  {{/if}}
</body>
</html>
`;

/**
 * The code the editor starts from when the form has no template of this kind: for the notification,
 * the default layout written as a template (every field in a table, then the files with their link); for the autoresponder, a short
 * thank-you that passes the content check.
 */
export function starterTemplate(kind: TemplateKind): string {
  return kind === 'notification' ? NOTIFICATION : AUTORESPONDER;
}
