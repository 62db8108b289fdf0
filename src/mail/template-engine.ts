import type Handlebars from 'handlebars';
import { htmlToText } from './html-to-text.js';
import { isolatedHandlebars, onFirstUse } from './handlebars.js';
import { budgetedHelpers, MAX_RENDER_STEPS, PRINT_HELPER, RenderBudget, RenderLimitError, type RenderLimits } from './template-budget.js';
import { MAX_TEMPLATE_STATEMENTS, templateSizeError } from './template-size.js';

export { htmlToText } from './html-to-text.js';
export { MAX_RENDER_STEPS, RenderLimitError, type RenderLimits } from './template-budget.js';

/** A template that compiled: render it with `renderTemplate`. */
export interface CompiledTemplate {
  render: Handlebars.TemplateDelegate;
}

export { MAX_TEMPLATE_CHARS, MAX_TEMPLATE_DEPTH, MAX_TEMPLATE_STATEMENTS, MAX_TEMPLATE_WORDS } from './template-size.js';

const STATEMENT_TYPES = new Set(['MustacheStatement', 'BlockStatement', 'SubExpression']);

/** The limits of every render, and of compiling a template when it is written (documented in docs/templates.md). */
export const TEMPLATE_LIMITS = {
  /** The steps a render may take (template-budget.ts): what stops `{{#each}}` nested over large arrays, the same on any machine. */
  steps: MAX_RENDER_STEPS,
  outputChars: 1_048_576,
  /** A safety net, far past what the steps allow on an idle machine (about 0.1 s): never the limit a render is meant to meet. */
  timeMs: 5_000,
} as const satisfies RenderLimits;

const ALLOWED_HELPERS = new Set(['if', 'unless', 'each', 'with']);
/** Path names a template cannot reach (prototypes and their accessors). */
export const FORBIDDEN_PATH_PARTS: ReadonlySet<string> = new Set([
  '__proto__',
  'constructor',
  'prototype',
  '__defineGetter__',
  '__defineSetter__',
  '__lookupGetter__',
  '__lookupSetter__',
]);
const KNOWN_HELPERS = { if: true, unless: true, each: true, with: true, [PRINT_HELPER]: true };

// An environment of its own: nothing registered elsewhere (helpers, partials) reaches templates.
const handlebars = onFirstUse(() => {
  const hbs = isolatedHandlebars();
  // NOTE: Handlebars logs every denied prototype access (`{{data.name.toUpperCase}}`) to the console; a denial is the intent here.
  hbs.logger.level = 4;
  return hbs;
});

/**
 * Parses and compiles template code, listing every problem: its size (template-size.ts), syntax, partials (no file system),
 * unknown helpers, unescaped output and paths that reach prototypes. Then renders it once with no
 * data, within `limits`, so that what fails at run time is refused too. Throws RenderLimitError when
 * that render ran out of time (the safety net), which says nothing about the template.
 */
export function compileTemplate(
  code: string,
  limits: RenderLimits = TEMPLATE_LIMITS,
): { ok: true; template: CompiledTemplate } | { ok: false; errors: string[] } {
  // counted before Handlebars sees the code: its parser and compiler slow steeply with size and depth
  const sizeError = templateSizeError(code);
  if (sizeError) return { ok: false, errors: [sizeError] };
  let ast: hbs.AST.Program;
  try {
    ast = handlebars().parseWithoutProcessing(code);
  } catch (err) {
    return { ok: false, errors: [oneLine(err)] };
  }
  const errors: string[] = [];
  const statements = walk(ast, errors);
  if (statements > MAX_TEMPLATE_STATEMENTS)
    errors.push(`code: ${statements} placeholders, blocks and helper calls, more than the ${MAX_TEMPLATE_STATEMENTS} a template may hold`);
  if (errors.length > 0) return { ok: false, errors };
  printThroughHelper(ast);
  const template = { render: handlebars().compile(ast, { strict: false, knownHelpersOnly: true, knownHelpers: KNOWN_HELPERS }) };
  try {
    // Handlebars compiles on first use: done here, so that no render's time is spent compiling
    (template.render as unknown as { _setup(options: object): void })._setup({});
    renderTemplate(template, {}, limits);
  } catch (err) {
    // NOTE: past the time (a safety net) is the machine's doing, not the template's: thrown, for the caller to answer as such
    if (err instanceof RenderLimitError && err.limit === 'time') throw err;
    return { ok: false, errors: [err instanceof RenderLimitError ? `rendered with no data, ${err.message}` : oneLine(err)] };
  }
  return { ok: true, template };
}

const RUNTIME: Handlebars.RuntimeOptions = { allowProtoPropertiesByDefault: false, allowProtoMethodsByDefault: false, helpers: {}, partials: {} };

/**
 * What a notification template reads beside `data` (docs/templates.md): the submission's files, and
 * `submissionUrl`, its page in the dashboard. Other templates (the autoresponder, subjects) get
 * neither: they print an empty list and nothing.
 */
export interface TemplateExtras {
  files?: readonly unknown[];
  submissionUrl?: string;
}

/**
 * Renders with the submission's fields under `data`, any shape, and its files and page under
 * `files` and `submissionUrl` (a notification's; none otherwise) (objects print as `name: value`
 * lines). Time and output are bounded while rendering, not after: every printed value and every
 * loop iteration is counted (`RenderBudget`). Throws RenderLimitError past a limit. `as: 'text'`
 * renders text that is not HTML (a subject line): values unescaped, and `text` is the output as it is.
 */
export function renderTemplate(
  template: CompiledTemplate,
  data: Record<string, unknown>,
  limits: RenderLimits = TEMPLATE_LIMITS,
  extras: TemplateExtras = {},
  as: 'html' | 'text' = 'html',
): { html: string; text: string } {
  const budget = new RenderBudget(limits);
  const helpers = budgetedHelpers(handlebars(), budget, as === 'html');
  const context = { data: plainCopy(data), files: plainCopy(extras.files ?? []), submissionUrl: extras.submissionUrl ?? '' };
  const html = template.render(context, { ...RUNTIME, helpers });
  budget.checkOutput(html.length);
  return { html, text: as === 'html' ? htmlToText(html) : html };
}

function oneLine(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).replace(/\s+/g, ' ').trim();
}

function at(node: { loc?: hbs.AST.SourceLocation }): string {
  return node.loc ? `line ${node.loc.start.line}, column ${node.loc.start.column + 1}` : 'template';
}

/** A Handlebars AST node, of any type: the fields the checks and the rewrite read, and the rest unread. */
interface AstNode {
  type?: unknown;
  loc?: hbs.AST.SourceLocation;
  escaped?: unknown;
  parts?: string[];
  params?: unknown[];
  hash?: unknown;
  path?: AstNode;
  original?: unknown;
  data?: unknown;
  [key: string]: unknown;
}

function walk(node: unknown, errors: string[]): number {
  if (!node || typeof node !== 'object') return 0;
  const n = node as AstNode;
  let statements = typeof n.type === 'string' && STATEMENT_TYPES.has(n.type) ? 1 : 0;
  switch (n.type) {
    case 'PartialStatement':
    case 'PartialBlockStatement':
      errors.push(`${at(n)}: partials are not allowed`);
      break;
    case 'DecoratorBlock':
    case 'Decorator':
      errors.push(`${at(n)}: decorators are not allowed`);
      break;
    case 'MustacheStatement':
      if (n.escaped === false) errors.push(`${at(n)}: unescaped output ({{{ }}} or {{& }}) is not allowed`);
      break;
    case 'PathExpression':
      for (const part of n.parts as string[]) if (FORBIDDEN_PATH_PARTS.has(part)) errors.push(`${at(n)}: "${part}" cannot be reached from a template`);
      break;
  }
  if ((n.type === 'MustacheStatement' || n.type === 'BlockStatement' || n.type === 'SubExpression') && ((n.params?.length ?? 0) > 0 || n.hash)) {
    const name = n.path?.original;
    if (typeof name === 'string' && !ALLOWED_HELPERS.has(name)) errors.push(`${at(n)}: unknown helper "${name}"`);
  }
  for (const value of Object.values(n)) {
    if (Array.isArray(value)) for (const child of value) statements += walk(child, errors);
    else if (value && typeof value === 'object' && 'type' in value) statements += walk(value, errors);
  }
  return statements;
}

/**
 * Rewrites every `{{value}}` (a mustache without parameters that is not a helper) into
 * `{{formgate:print value}}`: one place prints every value, whatever its shape, and counts it.
 */
function printThroughHelper(node: unknown): void {
  if (!node || typeof node !== 'object') return;
  const n = node as AstNode;
  const path = n.path;
  const isHelperName =
    path?.type === 'PathExpression' &&
    path.parts!.length === 1 &&
    !path.data &&
    typeof path.original === 'string' &&
    (ALLOWED_HELPERS.has(path.original) || path.original === PRINT_HELPER);
  if (n.type === 'MustacheStatement' && (n.params?.length ?? 0) === 0 && !n.hash && path && !isHelperName) {
    n.params = [path];
    n.path = { type: 'PathExpression', data: false, depth: 0, parts: [PRINT_HELPER], original: PRINT_HELPER, loc: path.loc };
    return;
  }
  for (const value of Object.values(n)) {
    if (Array.isArray(value)) value.forEach(printThroughHelper);
    else if (value && typeof value === 'object' && 'type' in value) printThroughHelper(value);
  }
}

/** The fields as plain objects without prototypes: nothing but the data is reachable, whatever the keys are called. */
function plainCopy(value: unknown, depth = 0): unknown {
  if (depth > 16) return null;
  if (Array.isArray(value)) return value.map((v) => plainCopy(v, depth + 1));
  if (value && typeof value === 'object') {
    const copy = Object.create(null) as Record<string, unknown>;
    for (const [k, v] of Object.entries(value)) copy[k] = plainCopy(v, depth + 1);
    return copy;
  }
  return value;
}
