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

/** "/srv/formgate/data/outbox/2025-…eml" as its folder and its file's name, to be shown apart. */
export function folderAndFile(file: string): { folder: string; name: string } {
  const cut = file.lastIndexOf('/');
  return cut < 0 ? { folder: '.', name: file } : { folder: file.slice(0, cut) || '/', name: file.slice(cut + 1) };
}
