// A form's `fileUploads` (issue 28): null when uploads are off, else its limits. Checked here for
// the API, the dashboard and the import alike, against the plan's ceilings (domain/uploads.ts).
import { fromJson, toJson } from '../db/database.js';
import type { FormRow } from '../db/schema/form.js';
import type { Plan } from '../domain/plans.js';
import { ALLOWED_TYPES_MAX, allowedTypeProblem, DEFAULT_FILE_UPLOADS, type FileUploadLimits, uploadCeilings } from '../domain/uploads.js';

/** What a client sends: any key left out takes its default (the object replaces the form's limits whole). */
export type FileUploadsInput = Partial<FileUploadLimits>;

/** The limits `input` stands for: the defaults where it leaves a key out. */
export function completeLimits(input: FileUploadsInput): FileUploadLimits {
  return {
    maxFileSize: input.maxFileSize ?? DEFAULT_FILE_UPLOADS.maxFileSize,
    maxTotalSize: input.maxTotalSize ?? DEFAULT_FILE_UPLOADS.maxTotalSize,
    allowedTypes: input.allowedTypes ?? [...DEFAULT_FILE_UPLOADS.allowedTypes],
  };
}

/**
 * Why `input` cannot be the form's `fileUploads` on `plan`, one sentence per field (each naming
 * it); empty when it can. Checks the shape too: the dashboard's input reaches here unchecked.
 */
export function fileUploadsProblems(input: FileUploadsInput | null | undefined, plan: Plan, upgraded?: boolean, team = false): string[] {
  if (input === undefined || input === null) return [];
  if (typeof input !== 'object' || Array.isArray(input)) return ['fileUploads: must be null (uploads off) or an object'];
  const problems: string[] = [];
  const extra = Object.keys(input).filter((key) => !['maxFileSize', 'maxTotalSize', 'allowedTypes'].includes(key));
  if (extra.length) problems.push(`fileUploads.${extra[0]}: is not a setting of fileUploads (maxFileSize, maxTotalSize, allowedTypes)`);
  const limits = completeLimits(input);
  const ceilings = uploadCeilings(plan, upgraded);
  for (const key of ['maxFileSize', 'maxTotalSize'] as const) {
    const value = limits[key];
    if (!Number.isInteger(value) || value < 1) problems.push(`fileUploads.${key}: must be a whole number of bytes, at least 1`);
    else if (value > ceilings[key])
      // team mode speaks no plans (issue 41, item 16)
      problems.push(
        `fileUploads.${key}: ${team ? 'this installation' : `a ${plan} workspace`} allows at most ${ceilings[key]} bytes (${megabytes(ceilings[key])})`,
      );
  }
  if (problems.length === 0 && limits.maxFileSize > limits.maxTotalSize) {
    problems.push('fileUploads.maxFileSize: must not be more than maxTotalSize (a file is part of its submission)');
  }
  const types = limits.allowedTypes;
  if (!Array.isArray(types) || types.length < 1 || types.length > ALLOWED_TYPES_MAX) {
    problems.push(`fileUploads.allowedTypes: must list 1 to ${ALLOWED_TYPES_MAX} types`);
  } else {
    types.forEach((entry, i) => {
      const problem = typeof entry === 'string' ? allowedTypeProblem(entry) : 'must be a string';
      if (problem) problems.push(`fileUploads.allowedTypes[${i}]: ${problem}`);
    });
  }
  return problems;
}

/** The columns `fileUploads` is stored in: null turns uploads off and keeps the limits for when they come back on. */
export function fileUploadsColumns(input: FileUploadsInput | null): { uploadsEnabled: number; uploadLimits?: string | null } {
  if (input === null) return { uploadsEnabled: 0 };
  // `{}`: the defaults, stored as null so that they follow the defaults of later releases
  if (Object.keys(input).length === 0) return { uploadsEnabled: 1, uploadLimits: null };
  return { uploadsEnabled: 1, uploadLimits: toJson(completeLimits(input)) };
}

/** The form's limits, on or off: the stored ones, or the defaults when it has none. */
export function uploadLimitsOf(form: { uploadLimits: unknown }): FileUploadLimits {
  const stored = fromJson<FileUploadLimits | null>(form.uploadLimits);
  return stored ? completeLimits(stored) : completeLimits({});
}

/** The Form resource's `fileUploads`: null when uploads are off. */
export function fileUploadsOf(form: Pick<FormRow, 'uploadsEnabled' | 'uploadLimits'>): FileUploadLimits | null {
  return form.uploadsEnabled === 1 ? uploadLimitsOf(form) : null;
}

/** Bytes as an owner reads them: "10 GB", "10 MB", "512 KB", "900 bytes". */
export function megabytes(bytes: number): string {
  if (bytes >= 1024 * 1024 * 1024) return `${trimmed(bytes / (1024 * 1024 * 1024))} GB`;
  if (bytes >= 1024 * 1024) return `${trimmed(bytes / (1024 * 1024))} MB`;
  if (bytes >= 1024) return `${trimmed(bytes / 1024)} KB`;
  return `${bytes} bytes`;
}

function trimmed(value: number): string {
  return Number.isInteger(value) ? String(value) : value.toFixed(1);
}
