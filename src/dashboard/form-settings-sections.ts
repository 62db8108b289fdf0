import { SPAM_PROTECTIONS, type SpamProtection } from '../domain/captcha-providers.js';
import type { BehaviourValues } from './form-behaviour-input.js';
import type { SettingsValues } from './form-settings-input.js';
import { type FieldNouns, type ItemNouns, plainMessage } from './plain-errors.js';
import { spamProtectionName } from './views/form-secrets-settings.js';

/**
 * The settings page's sections (issue 41, item 11): each is its own form that posts only its own
 * fields, with `section` naming it, so saving one never touches another's stored values.
 */
export const SETTINGS_SECTIONS = [
  { id: 'general', title: 'General', button: 'Save general settings', saved: 'General settings saved' },
  { id: 'notifications', title: 'Notifications', button: 'Save notifications', saved: 'Notifications saved' },
  { id: 'spam-protection', title: 'Spam protection', button: 'Save spam protection', saved: 'Spam protection saved' },
  { id: 'retention', title: 'Keeping submissions', button: 'Save how long submissions are kept', saved: 'How long submissions are kept: saved' },
  { id: 'file-uploads', title: 'File uploads', button: 'Save file uploads', saved: 'File uploads saved' },
  { id: 'after-submission', title: 'After a submission', button: 'Save after-submission settings', saved: 'After-submission settings saved' },
  { id: 'email-wording', title: 'Email subjects and senders', button: 'Save subjects and senders', saved: 'Subjects and senders saved' },
  { id: 'form-state', title: 'Taking submissions', button: 'Save closing time and limit', saved: 'Closing time and limit saved' },
] as const;

export type SettingsSection = (typeof SETTINGS_SECTIONS)[number]['id'];
export type SectionWords = (typeof SETTINGS_SECTIONS)[number];

/** A section's words by its id. */
export function sectionWords(id: SettingsSection): SectionWords {
  return SETTINGS_SECTIONS.find((s) => s.id === id) as SectionWords;
}

/** The section a post names, or null (a post of the whole page, as before the sections). */
export function sectionOf(value: unknown): SettingsSection | null {
  const id = Array.isArray(value) ? value[0] : value;
  return SETTINGS_SECTIONS.some((s) => s.id === id) ? (id as SettingsSection) : null;
}

type OwnKey = Exclude<keyof SettingsValues, 'adding' | 'behaviour'>;
type BehaviourKey = Exclude<keyof BehaviourValues, 'zone'>;

/** What each section holds: its own values, and its share of the behaviour panels'. */
const HOLDS: Record<SettingsSection, { own: OwnKey[]; behaviour: BehaviourKey[] }> = {
  general: { own: ['name', 'description', 'technology'], behaviour: [] },
  notifications: { own: ['notificationEmails', 'emailThreading', 'webhookUrl', 'slackChannel'], behaviour: [] },
  'spam-protection': {
    own: [
      'spamProtection',
      'customHoneypot',
      'customSpamWords',
      'spamJudgesShown',
      'spamAssassin',
      'flagDisposableAddresses',
      'flagSameMessage',
      'allowedOrigins',
    ],
    behaviour: [],
  },
  retention: { own: ['retentionDays'], behaviour: [] },
  'file-uploads': { own: ['uploadsShown', 'uploadsEnabled', 'uploadMaxFileSizeMb', 'uploadMaxTotalSizeMb', 'uploadAllowedTypes'], behaviour: [] },
  'after-submission': { own: [], behaviour: ['redirectUrl', 'thanksTitle', 'thanksMessage'] },
  'email-wording': { own: [], behaviour: ['notificationSubject', 'notificationFromName', 'autoresponseSubject', 'autoresponseFromName'] },
  'form-state': { own: [], behaviour: ['closesAt', 'maxSubmissions'] },
};

/** The API fields a section's save may change: the rest of a patch is left out, so the rest of the form stays as stored. */
export const SECTION_FIELDS: Record<SettingsSection, readonly string[]> = {
  general: ['name', 'description', 'technology'],
  notifications: ['notificationEmails', 'emailThreading', 'webhookUrl', 'slackChannel'],
  'spam-protection': ['spamProtection', 'customHoneypot', 'customSpamWords', 'spamAssassin', 'flagDisposableAddresses', 'flagSameMessage', 'allowedOrigins'],
  retention: ['retentionDays'],
  'file-uploads': ['fileUploads'],
  'after-submission': HOLDS['after-submission'].behaviour,
  'email-wording': HOLDS['email-wording'].behaviour,
  'form-state': HOLDS['form-state'].behaviour,
};

/** The page after a section's post: that section as posted, every other as stored (a post carries only its own section). */
export function withSection(stored: SettingsValues, posted: SettingsValues, section: SettingsSection): SettingsValues {
  const { own, behaviour } = HOLDS[section];
  const values: SettingsValues = { ...stored, adding: { notificationEmails: '', allowedOrigins: '' } };
  const target = values as unknown as Record<string, unknown>;
  for (const key of own) target[key] = posted[key];
  if (own.includes('notificationEmails')) values.adding.notificationEmails = posted.adding.notificationEmails;
  if (own.includes('allowedOrigins')) values.adding.allowedOrigins = posted.adding.allowedOrigins;
  if (behaviour.length && stored.behaviour) {
    const merged = { ...stored.behaviour };
    for (const key of behaviour) merged[key] = posted.behaviour?.[key] ?? '';
    values.behaviour = merged;
  }
  return values;
}

/** The settings page's fields as its labels name them, for its messages. */
const NOUNS: FieldNouns = {
  name: 'The name',
  description: 'The description',
  technology: 'The technology',
  notificationEmails: 'The list of notification addresses',
  webhookUrl: 'The webhook URL',
  webhookBodyFormat: 'The webhook body format',
  webhookBodyTemplate: 'The webhook body template',
  slackChannel: 'The Slack channel',
  spamProtection: 'The spam protection',
  customHoneypot: 'The custom honeypot field',
  customSpamWords: 'The list of custom spam words',
  allowedOrigins: 'The list of allowed origins',
  retentionDays: 'The number of days to keep submissions',
  fileUploads: 'The file uploads setting',
  'fileUploads.maxFileSize': 'The largest file',
  'fileUploads.maxTotalSize': 'The size of all files of a submission',
  'fileUploads.allowedTypes': 'The list of allowed types',
  redirectUrl: 'The redirect address',
  thanksTitle: 'The thank-you title',
  thanksMessage: 'The thank-you message',
  notificationSubject: 'The notification subject',
  notificationFromName: 'The notification sender name',
  autoresponseSubject: 'The autoresponder subject',
  autoresponseFromName: 'The autoresponder sender name',
  closesAt: 'The closing time',
  maxSubmissions: 'The limit on submissions',
  secret: 'The secret key',
  botToken: 'The bot token',
  chatId: 'The chat ID',
  url: 'The URL',
};

const ITEMS: ItemNouns = { notificationEmails: 'Address', allowedOrigins: 'Origin', 'fileUploads.allowedTypes': 'Allowed type' };

/** A message of the settings page as a plain sentence about its field (fieldErrors' `words`). */
export function settingsWords(field: string, message: string): string {
  const text = message.replace(
    /^no (\w+) secret key is stored for this form;.*$/s,
    (_, provider: string) =>
      `No ${SPAM_PROTECTIONS.includes(provider as SpamProtection) ? spamProtectionName(provider as SpamProtection) : provider} secret key is stored for this form: store it under Secret keys first, or choose another`,
  );
  return plainMessage(field, text, NOUNS, ITEMS);
}

/** Where a message's link leads: the input it is about (the File uploads panel names its inputs apart), else its section. */
export function fieldAnchor(field: string): string {
  const item = /^(notificationEmails|allowedOrigins)\[(\d+)\]$/.exec(field);
  if (item) return `field-${item[1]}-${item[2]}`;
  if (field === 'notificationEmails' || field === 'allowedOrigins') return `field-add-${field}`;
  if (field.startsWith('fileUploads.maxFileSize')) return 'field-uploadMaxFileSizeMb';
  if (field.startsWith('fileUploads.maxTotalSize')) return 'field-uploadMaxTotalSizeMb';
  if (field.startsWith('fileUploads')) return 'field-uploadAllowedTypes';
  return /^\w+$/.test(field) ? `field-${field}` : 'settings-index';
}
