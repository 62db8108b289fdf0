import type Handlebars from 'handlebars';
import { htmlToText } from './html-to-text.js';
import { isolatedHandlebars, onFirstUse } from './handlebars.js';
import { budgetedHelpers, JSON_VALUE_HELPER, MAX_RENDER_STEPS, PRINT_HELPER, RenderBudget, RenderLimitError, type RenderLimits } from './template-budget.js';
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
const KNOWN_HELPERS = { if: true, unless: true, each: true, with: true, [PRINT_HELPER]: true, [JSON_VALUE_HELPER]: true };

/**
 * What a template renders: an email's HTML (values HTML-escaped), text that is not HTML (a subject),
 * or a webhook body (docs/webhooks.md, Body templates): JSON, where a value inside a JSON string is
 * JSON-escaped and one outside is written as JSON, or a form body, where each value is percent-encoded.
 */
export type RenderAs = 'html' | 'text' | 'json' | 'urlencoded';

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
  as: RenderAs = 'html',
): { ok: true; template: CompiledTemplate } | { ok: false; errors: string[] } {
  // NOTE: in JSON, `{"car": {{data.car}}}` ends with three braces, which Handlebars reads as `{{{ }}}`: the closing ones are
  // split by an empty comment (nothing printed), the opening ones by a space (`{ {{`; a JSON body's unescaped output is refused anyway)
  if (as === 'json') code = code.replace(/\{\{\{/g, '{ {{').replace(/\}\}\}/g, '}}{{!}}}');
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
  if (as === 'json' || as === 'urlencoded') errors.push(...inlineHelperErrors(ast));
  if (statements > MAX_TEMPLATE_STATEMENTS)
    errors.push(`code: ${statements} placeholders, blocks and helper calls, more than the ${MAX_TEMPLATE_STATEMENTS} a template may hold`);
  if (errors.length > 0) return { ok: false, errors };
  if (as === 'json') printInJson(ast.body, { inString: false, escaped: false });
  else printThroughHelper(ast);
  const template = { render: handlebars().compile(ast, { strict: false, knownHelpersOnly: true, knownHelpers: KNOWN_HELPERS }) };
  try {
    // Handlebars compiles on first use: done here, so that no render's time is spent compiling
    (template.render as unknown as { _setup(options: object): void })._setup({});
    renderTemplate(template, {}, limits, {}, as);
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
  as: RenderAs = 'html',
): { html: string; text: string } {
  const budget = new RenderBudget(limits);
  const helpers = budgetedHelpers(handlebars(), budget, as === 'html' ? 'html' : as === 'json' ? 'json-string' : as === 'urlencoded' ? 'url' : 'none');
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

/** Where the text written so far leaves a JSON body: inside a string or not, just after a backslash inside one. */
interface JsonPosition {
  inString: boolean;
  escaped: boolean;
}

/** The position after `text`, written at `from`: quotes open and close strings, a backslash escapes the next character. */
function jsonPositionAfter(text: string, from: JsonPosition): JsonPosition {
  let { inString, escaped } = from;
  for (const ch of text) {
    if (escaped) escaped = false;
    else if (inString && ch === '\\') escaped = true;
    else if (ch === '"') inString = !inString;
  }
  return { inString, escaped };
}

/**
 * Rewrites a JSON body's `{{value}}`s, in the order they are written: one inside a JSON string
 * (`"From {{data.name}}"`) prints the value JSON-escaped (`formgate:print` with JSON escaping); one
 * outside (`"tags": {{data.tags}}`) prints it as JSON (`formgate:json-value`). A block's content is
 * read from where the block starts, and the text after it from where its first branch ends.
 */
function printInJson(statements: unknown[], start: JsonPosition): JsonPosition {
  let at = start;
  for (const statement of statements) {
    const n = statement as AstNode;
    if (n.type === 'ContentStatement') at = jsonPositionAfter(String(n.value ?? ''), at);
    else if (n.type === 'MustacheStatement') {
      if ((n.params?.length ?? 0) === 0 && !n.hash && n.path) {
        const helper = at.inString ? PRINT_HELPER : JSON_VALUE_HELPER;
        n.params = [n.path];
        n.path = { type: 'PathExpression', data: false, depth: 0, parts: [helper], original: helper, loc: n.path.loc };
      }
    } else if (n.type === 'BlockStatement') {
      const program = n.program as { body: unknown[] } | undefined;
      const inverse = n.inverse as { body: unknown[] } | undefined;
      const afterProgram = program ? printInJson(program.body, at) : at;
      const afterInverse = inverse ? printInJson(inverse.body, at) : at;
      at = program ? afterProgram : afterInverse;
    }
  }
  return at;
}

/** A webhook body prints values and uses blocks; a helper called inline (`{{if a b}}`) would print unescaped, so it is refused. */
function inlineHelperErrors(node: unknown): string[] {
  const errors: string[] = [];
  const visit = (value: unknown) => {
    if (!value || typeof value !== 'object') return;
    const n = value as AstNode;
    const name = n.path?.original;
    if (n.type === 'MustacheStatement' && ((n.params?.length ?? 0) > 0 || n.hash) && typeof name === 'string' && ALLOWED_HELPERS.has(name))
      errors.push(`${at(n)}: a helper is used as a block in a webhook body ({{#if …}}…{{/if}}), not inline`);
    for (const child of Object.values(n)) {
      if (Array.isArray(child)) child.forEach(visit);
      else if (child && typeof child === 'object' && 'type' in child) visit(child);
    }
  };
  visit(node);
  return errors;
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
