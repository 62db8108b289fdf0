import { DAY_MS } from './time.js';
import { cutText } from './cut-text.js';

/** How often a workspace's spam digest goes out. */
export type DigestFrequency = 'daily' | 'weekly' | 'off';

export const DIGEST_FREQUENCIES: readonly DigestFrequency[] = ['daily', 'weekly', 'off'];

/** A workspace that never chose gets the daily digest. */
export const DEFAULT_DIGEST_FREQUENCY: DigestFrequency = 'daily';

/** The time between two digests of a workspace. */
export const DIGEST_PERIOD_MS: Record<Exclude<DigestFrequency, 'off'>, number> = { daily: DAY_MS, weekly: 7 * DAY_MS };

export function isDigestFrequency(value: unknown): value is DigestFrequency {
  return typeof value === 'string' && (DIGEST_FREQUENCIES as readonly string[]).includes(value);
}

/** A digest line shows this many characters of the message: enough to judge it, never a wall of text. */
export const FIRST_LINE_LENGTH = 140;

// Fields that usually hold the message, then the ones that name the sender (read before any other field).
const MESSAGE_FIELDS = ['message', 'msg', 'comments', 'comment', 'body', 'content', 'text', 'enquiry', 'inquiry', 'question', 'description'];
const NAME_FIELDS = ['name', 'full_name', 'fullName', 'fullname', 'your-name', 'your_name'];

/** Who sent a submission, as a digest names them: "Name <address>", the address, the name, or null. */
export function senderOf(data: Record<string, unknown>, address: string | null): string | null {
  const name = NAME_FIELDS.map((field) => oneLine(data[field])).find((value) => value !== '');
  const shortName = name ? cutText(name, 80) : null;
  if (shortName && address) return `${shortName} <${address}>`;
  return address ?? shortName;
}

/**
 * The first line of what the submission says: its message field when it has one (`message`,
 * `comments`, …), else its first text field that names nobody; cut to FIRST_LINE_LENGTH. Text
 * only: whoever renders it escapes it.
 */
export function firstLineOf(data: Record<string, unknown>): string {
  const byName = MESSAGE_FIELDS.map((field) => data[field]).find((value) => typeof value === 'string' && value.trim() !== '');
  const other = Object.entries(data).find(
    ([field, value]) => typeof value === 'string' && value.trim() !== '' && !NAME_FIELDS.includes(field) && field !== 'email' && field !== 'mail',
  )?.[1];
  const text = (byName ?? other ?? '') as string;
  const line = text.split(/\r\n|[\r\n\u2028\u2029]/).find((l) => l.trim() !== '') ?? '';
  return cutText(oneLine(line), FIRST_LINE_LENGTH);
}

/** A value as one line of plain text without control or invisible characters; '' for anything but a string or number. */
function oneLine(value: unknown): string {
  if (typeof value !== 'string' && typeof value !== 'number') return '';
  return String(value)
    .replace(/(?!\u200d)[\p{Cc}\p{Cf}]/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}
