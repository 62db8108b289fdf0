// Which outside spam judges a form turned on (issue 40, item 4): three switches stored 0/1
// (migration 0031), booleans in the API and the dashboard. Akismet is not here: it is on while the
// form stores its key (services/form-secrets.ts, provider AKISMET).
import type { FormRow, FormUpdate } from '../db/schema/form.js';

export const SPAM_JUDGE_KEYS = ['spamAssassin', 'flagDisposableAddresses', 'flagSameMessage'] as const;
export type SpamJudgeKey = (typeof SPAM_JUDGE_KEYS)[number];

/** The switches as the API names them; a key left out is left as it is. */
export type SpamJudgeSwitches = { [K in SpamJudgeKey]?: boolean };

/** The columns of the switches that were sent. */
export function spamJudgeColumns(input: SpamJudgeSwitches): FormUpdate {
  const update: FormUpdate = {};
  for (const key of SPAM_JUDGE_KEYS) if (input[key] !== undefined) update[key] = input[key] ? 1 : 0;
  return update;
}

/** The switches of a stored form. */
export function spamJudgesOf(form: Pick<FormRow, SpamJudgeKey>): Required<SpamJudgeSwitches> {
  return { spamAssassin: form.spamAssassin === 1, flagDisposableAddresses: form.flagDisposableAddresses === 1, flagSameMessage: form.flagSameMessage === 1 };
}
