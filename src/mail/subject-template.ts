import { headerText } from './header-text.js';
import { compileTemplate } from './template-engine.js';
import { sharedTemplateWorkers, type TemplateWorkers } from './template-workers.js';

/** The longest subject sent, in code points, whatever a placeholder printed. */
export const SENT_SUBJECT_MAX = 200;

/** Whether a setting is written with placeholders (`{{data.name}}`) and is rendered as a template. */
export function hasPlaceholders(setting: string): boolean {
  return setting.includes('{{');
}

/**
 * Why a subject setting cannot be stored as a template, one entry per problem (`line 1, column 9:
 * unknown helper "upper"`); none for one without placeholders. The template checks of
 * docs/templates.md apply: the settings are at most 200 characters, so this compiles on the spot.
 */
export function subjectTemplateProblems(setting: string): string[] {
  if (!hasPlaceholders(setting)) return [];
  const compiled = compileTemplate(setting);
  return compiled.ok ? [] : compiled.errors;
}

/**
 * A subject setting filled in with a submission's fields, on the template workers (a loop over a
 * large submitted list is bounded as a template's is): values printed as sent, not HTML-escaped,
 * then made one printable line of at most 200 characters, so no value can add a header. Null when
 * there is no setting, or it renders to nothing or fails (too slow, too large): the default subject then.
 */
export async function renderSubject(
  setting: string | null | undefined,
  data: Record<string, unknown>,
  renderer: TemplateWorkers = sharedTemplateWorkers(),
): Promise<string | null> {
  if (!setting) return null;
  if (!hasPlaceholders(setting)) return setting;
  const outcome = await renderer.renderText(setting, data);
  if (!outcome.ok) return null;
  return headerText(outcome.text, SENT_SUBJECT_MAX) || null;
}
