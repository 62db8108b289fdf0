/** What a delivery is, in the same words on every page: "Notification email", "Webhook". */
const KIND_NAMES: Record<string, string> = {
  notification: 'Notification email',
  autoresponder: 'Autoresponder',
  webhook: 'Webhook',
  slack: 'Slack message',
  email: 'Email',
};

export function deliveryKindName(kind: string): string {
  return KIND_NAMES[kind] ?? kind;
}
