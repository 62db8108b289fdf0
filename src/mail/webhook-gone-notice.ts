import type { AccountMessage } from './account-mail.js';

/** What the owners are told when a form's webhook receiver answers 410 Gone. */
export interface WebhookGoneFacts {
  formName: string;
  formId: string;
  workspaceName: string;
  url: string;
  /** The form's Settings page, where saving the webhook settings turns it on again. */
  settingsUrl: string;
}

/** The email telling a workspace's owners that a form's webhook was turned off, and how to turn it on again. */
export function webhookGoneMessage(facts: WebhookGoneFacts): AccountMessage {
  return {
    subject: `The webhook of the form "${facts.formName}" was turned off`,
    paragraphs: [
      `The webhook of the form "${facts.formName}" (workspace "${facts.workspaceName}") answered 410 Gone at ${facts.url}: the receiver says it wants no more webhooks from this form.`,
      'So Formgate has turned the form’s webhook off: new submissions are kept and their emails and other deliveries go out as usual, but nothing is posted to the webhook. Those deliveries show as failed in the form’s delivery log.',
      'If that address was answered by mistake, or the receiver is back, save the webhook settings on the form’s Settings page (the same URL or a new one) to turn the webhook on again, then use "Retry all failed" in the delivery log to send what was missed.',
    ],
    action: { label: 'Open the form’s settings', url: facts.settingsUrl },
    footer: `Form ${facts.formId}. You receive this email because you own the workspace; it is sent once each time the webhook is turned off.`,
  };
}
