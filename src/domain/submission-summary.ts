// Who sent a submission and what it says, in a few words, read from fields a visitor's form named as
// forms usually do (`name`, `Full Name`, `your-name`, `email`, `message`, `Comments`, …): the
// inbox's rows, a submission page's heading, the delivery log and the spam digest all name a
// submission this way. Text only: whoever renders it escapes it.
import { cutText } from './cut-text.js';

/** A submission's stored data as an object of fields (anything else, such as an array, has no named fields). */
export function fieldsOf(data: unknown): Record<string, unknown> {
  return data !== null && typeof data === 'object' && !Array.isArray(data) ? (data as Record<string, unknown>) : {};
}

/** A sender's name is cut to this many characters: a name, never a paragraph. */
export const WHO_LENGTH = 80;
/** A first line is cut to this many characters: enough to judge it, never a wall of text. */
export const FIRST_LINE_LENGTH = 140;

// Field names compared without case, spaces, `-`, `_` or `.`: "Full Name", "full_name" and "fullName" are one.
const NAME_FIELDS = ['name', 'fullname', 'yourname', 'contactname', 'customername'];
const FIRST_NAME_FIELDS = ['firstname', 'givenname', 'fname'];
const LAST_NAME_FIELDS = ['lastname', 'surname', 'familyname', 'lname'];
const EMAIL_FIELDS = ['email', 'emailaddress', 'youremail', 'mail', 'replyto'];
const MESSAGE_FIELDS = [
  'message',
  'yourmessage',
  'msg',
  'comments',
  'comment',
  'body',
  'content',
  'text',
  'enquiry',
  'inquiry',
  'question',
  'description',
  'details',
  'request',
  'feedback',
  'notes',
];
const NAMING_FIELDS = new Set([...NAME_FIELDS, ...FIRST_NAME_FIELDS, ...LAST_NAME_FIELDS, ...EMAIL_FIELDS]);

/** A submission's fields by their compared names, the first of each name kept. */
function fieldsByName(data: Record<string, unknown>): Map<string, unknown> {
  const fields = new Map<string, unknown>();
  for (const [name, value] of Object.entries(data)) {
    const compared = name.toLowerCase().replace(/[\s._-]+/g, '');
    if (!fields.has(compared)) fields.set(compared, value);
  }
  return fields;
}

function firstFilled(fields: Map<string, unknown>, names: readonly string[]): string {
  for (const name of names) {
    const value = oneLine(fields.get(name));
    if (value !== '') return value;
  }
  return '';
}

/** The sender's name from the submission's fields (a name field, else first and last name), or null. */
export function nameOf(data: Record<string, unknown>): string | null {
  return nameIn(fieldsByName(data));
}

function nameIn(fields: Map<string, unknown>): string | null {
  const name = firstFilled(fields, NAME_FIELDS) || [firstFilled(fields, FIRST_NAME_FIELDS), firstFilled(fields, LAST_NAME_FIELDS)].join(' ').trim();
  return name === '' ? null : cutText(name, WHO_LENGTH);
}

/** Who sent it, as a list names them: the name, else the e-mail field's value, else null. */
export function whoOf(data: Record<string, unknown>): string | null {
  // the fields read once: a list names 50 submissions a page
  const fields = fieldsByName(data);
  const email = firstFilled(fields, EMAIL_FIELDS);
  return nameIn(fields) ?? (email === '' ? null : cutText(email, WHO_LENGTH));
}

/** Who sent it, as a digest names them: "Name <address>", the address, the name, or null. */
export function senderOf(data: Record<string, unknown>, address: string | null): string | null {
  const name = nameOf(data);
  if (name && address) return `${name} <${address}>`;
  return address ?? name;
}

/**
 * The first line of what the submission says: its message field when it has one (`message`,
 * `Comments`, …), else its first text field that names nobody; cut to FIRST_LINE_LENGTH.
 */
export function firstLineOf(data: Record<string, unknown>): string {
  const fields = fieldsByName(data);
  const byName = MESSAGE_FIELDS.map((name) => fields.get(name)).find((value) => typeof value === 'string' && value.trim() !== '');
  const other = [...fields].find(([name, value]) => typeof value === 'string' && value.trim() !== '' && !NAMING_FIELDS.has(name))?.[1];
  // blank lines first aside, the first line is within the first few thousand characters or is cut anyway
  const text = ((byName ?? other ?? '') as string).slice(0, 4096);
  const line = text.split(/\r\n|[\r\n\u2028\u2029]/).find((l) => l.trim() !== '') ?? '';
  return cutText(oneLine(line), FIRST_LINE_LENGTH);
}

/** A value as one line of plain text without control or invisible characters; '' for anything but a string or number. */
function oneLine(value: unknown): string {
  if (typeof value !== 'string' && typeof value !== 'number') return '';
  // whatever is shown is cut far shorter than this: a 300 KB field costs no more than a short one
  return String(value)
    .slice(0, 4 * FIRST_LINE_LENGTH)
    .replace(/(?!\u200d)[\p{Cc}\p{Cf}]/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}
