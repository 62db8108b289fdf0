import { PROBLEMS, problemAnchor, type ProblemCode } from '../errors.js';

/** Builds the problem document of 2.6 for a code. */
export function problemBody(docsUrl: string, code: ProblemCode, detail: string, extra: Record<string, unknown> = {}) {
  const { status, title } = PROBLEMS[code];
  return { type: `${docsUrl}#${problemAnchor(code)}`, title, status, detail, code, ...extra };
}
