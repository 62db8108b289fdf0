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
 * A visitor's filename made safe to show and to offer as a download's name: no directories, no
 * control or reserved characters, at most 200 characters (keeping the extension), never empty.
 * It is never used as a path: files are stored under keys Formgate makes.
 */
export function safeFileName(sent: string): string {
  const base = sent.split(/[/\\]/).pop() ?? '';
  let name = base.replace(UNSAFE_IN_NAME, '_').trim().replace(/^\.+/, '');
  if (name.length > 200) {
    const dot = name.lastIndexOf('.');
    const extension = dot > 0 && name.length - dot <= 20 ? name.slice(dot) : '';
    name = name.slice(0, 200 - extension.length) + extension;
  }
  return name === '' ? 'file' : name;
}
