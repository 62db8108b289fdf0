import { validationError } from '../errors.js';

/**
 * A read-only field of a resource as a client sent it back with a change (it PATCHes or PUTs what it
 * read from the API), and what the resource holds.
 */
export interface SentBack {
  name: string;
  sent: unknown;
  stored: unknown;
  /** Why it cannot differ: the second half of the validation entry, `<name>: <why>`. */
  why: string;
}

/**
 * Accepts read-only fields sent back unchanged, and refuses one that differs (`400 validation_error`
 * naming each): a different value would ask for a change the API does not make (moving a form to
 * another workspace, buying a plan), and silently keeping the old one would hide that. Fields that
 * move on their own (`createdAt`, `updatedAt`, `submissionsQuota`, `paused`) are not checked at all:
 * the caller drops them, as a copy read a moment ago may hold an older value.
 */
export function requireUnchanged(fields: SentBack[]): void {
  const errors = fields.filter((field) => field.sent !== undefined && field.sent !== field.stored).map((field) => `${field.name}: ${field.why}`);
  if (errors.length > 0) throw validationError(errors, 'A read-only field differs from the resource’s value; it cannot be changed.');
}
