// File uploads (issue 28): what a form accepts, what a plan allows, and how a visitor's filename
// and declared type are judged. Pure rules: the intake, the API and the dashboard all read these.
import type { Plan } from './plans.js';
import { isUpgraded } from './plans.js';

const MB = 1024 * 1024;
const GB = 1024 * MB;

/** A form's limits on files: `fileUploads` of the Form resource when uploads are on. */
export interface FileUploadLimits {
  /** Bytes one file may have. */
  maxFileSize: number;
  /** Bytes all the files of one submission may have together. */
  maxTotalSize: number;
  /** Extensions (`.pdf`) and content types (`application/pdf`, `image/*`): a file matching any one is allowed. */
  allowedTypes: string[];
}

/** What every form starts with: common documents and images, 10 MB a file, 25 MB a submission. */
export const DEFAULT_FILE_UPLOADS: Readonly<FileUploadLimits> = Object.freeze({
  maxFileSize: 10 * MB,
  maxTotalSize: 25 * MB,
  allowedTypes: ['.pdf', '.doc', '.docx', '.xls', '.xlsx', '.ppt', '.pptx', '.odt', '.ods', '.odp', '.txt', '.png', '.jpg', '.jpeg', '.gif', '.webp'],
});

/** The most a plan lets a form accept, and the bytes of files a workspace may keep in all. */
export interface UploadCeilings {
  maxFileSize: number;
  maxTotalSize: number;
  storageBytes: number;
}

const FREE_CEILINGS: UploadCeilings = { maxFileSize: 10 * MB, maxTotalSize: 25 * MB, storageBytes: 100 * MB };
const UPGRADED_CEILINGS: UploadCeilings = { maxFileSize: 100 * MB, maxTotalSize: 250 * MB, storageBytes: 10 * GB };

/** `upgraded`: as the installation's rules say (team mode: every workspace); by default the stored plan's. */
export function uploadCeilings(plan: Plan, upgraded = isUpgraded(plan)): UploadCeilings {
  return upgraded ? UPGRADED_CEILINGS : FREE_CEILINGS;
}

/** At most this many entries in `allowedTypes`, each at most this long: the list is checked per file. */
export const ALLOWED_TYPES_MAX = 50;
export const ALLOWED_TYPE_MAX_LENGTH = 100;
/** At most this many files in one submission: each is a row and an object. */
export const FILES_PER_SUBMISSION_MAX = 20;

const EXTENSION = /^\.[a-z0-9][a-z0-9._+-]{0,30}$/;
const CONTENT_TYPE = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,62}\/(\*|[a-z0-9][a-z0-9!#$&^_.+-]{0,126})$/;

/** Why `entry` cannot be an entry of `allowedTypes`, or null. */
export function allowedTypeProblem(entry: string): string | null {
  if (entry.length > ALLOWED_TYPE_MAX_LENGTH) return `at most ${ALLOWED_TYPE_MAX_LENGTH} characters`;
  const lower = entry.toLowerCase();
  if (EXTENSION.test(lower) || CONTENT_TYPE.test(lower)) return null;
  return 'must be an extension such as ".pdf" or a content type such as "application/pdf" or "image/*"';
}

/**
 * Whether a file named `fileName` and declared as `declaredType` matches one of `allowedTypes`:
 * an extension with the name's ending (`.pdf`, `.tar.gz`), a type (or `type/*`) with the declared type; both
 * without regard to case. Linear in the list, which is at most ALLOWED_TYPES_MAX long.
 */
export function typeAllowed(allowedTypes: readonly string[], fileName: string, declaredType: string): boolean {
  const name = fileName.toLowerCase();
  const type = declaredType.split(';')[0]!.trim().toLowerCase();
  const family = type.slice(0, type.indexOf('/') + 1);
  return allowedTypes.some((entry) => {
    const lower = entry.toLowerCase();
    // an ending, so `.tar.gz` works too; a name that is only the extension (`.pdf`) has none
    if (lower.startsWith('.')) return name.length > lower.length && name.endsWith(lower);
    if (lower.endsWith('/*')) return family !== '' && lower.slice(0, -1) === family;
    return lower === type;
  });
}

// Control characters, path separators and the characters Windows refuses in a name.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching controls is the point: they are replaced
const UNSAFE_IN_NAME = /[\u0000-\u001f\u007f/\\:*?"<>|]/g;

/**
 * Characters that change how a name looks without being seen (issue 38, item 17): C1 controls, the
 * bidirectional controls (embeddings, overrides and isolates U+202A–202E and U+2066–2069, the marks
 * U+200E, U+200F and U+061C), and invisible ones (zero-width space, word joiner and invisible
 * operators, the byte order mark, the soft hyphen). `a\u202Efdp.html` reads as `ahtml.pdf`.
 * NOTE: ZWJ and ZWNJ (U+200C, U+200D) stay: Persian, the Indic scripts and emoji need them. A
 * regular expression's character class (mail/header-text.ts skips them too).
 */
export const HIDDEN_CHARACTERS = '\\u0080-\\u009f\\u00ad\\u061c\\u200b\\u200e\\u200f\\u202a-\\u202e\\u2060-\\u2064\\u2066-\\u2069\\ufeff';
const HIDDEN_IN_NAME = new RegExp(`[${HIDDEN_CHARACTERS}]`, 'g');
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * A visitor's text that is shown as a name (a file's, an email's sender or subject, a column's)
 * without the characters that would make it read as something else: bidirectional controls and
 * invisible characters are removed, so a name shows what it is in the dashboard, in emails and
 * as a download's name. Text shown as text (a message) keeps them: right-to-left writing uses marks.
 */
export function withoutHiddenCharacters(text: string): string {
  return text.replace(HIDDEN_IN_NAME, '');
}

/**
 * A visitor's filename made safe to show and to offer as a download's name: no directories, no
 * control, reserved, bidirectional or invisible characters, at most 200 characters (keeping the
 * extension), never empty. It is never used as a path: files are stored under keys Formgate makes.
 * Applied at intake (the stored name) and again wherever a name leaves (a name stored before is
 * neutralised the same way).
 */
export function safeFileName(sent: string): string {
  // a lone surrogate (from a percent-decoded `filename*`) would make encodeURIComponent throw
  const base = withoutHiddenCharacters(sent.replace(LONE_SURROGATE, '\ufffd')).split(/[/\\]/).pop() ?? '';
  let name = base.replace(UNSAFE_IN_NAME, '_').trim().replace(/^\.+/, '');
  if (name.length > 200) {
    const dot = name.lastIndexOf('.');
    const extension = dot > 0 && name.length - dot <= 20 ? name.slice(dot) : '';
    name = name.slice(0, 200 - extension.length) + extension;
  }
  return name === '' ? 'file' : name;
}

/**
 * `attachment; filename="…"; filename*=UTF-8''…` (RFC 6266, RFC 8187): the safe name, its ASCII
 * form for old clients (anything else, quotes and backslashes as `_`), and the exact one encoded.
 * Downloads through Formgate and the objects of a bucket carry it alike.
 */
export function downloadDisposition(name: string): string {
  const safe = safeFileName(name);
  const ascii = safe.replace(/[^\x20-\x7e]|["\\]/g, '_');
  const encoded = encodeURIComponent(safe).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}
