import type Handlebars from 'handlebars';
import { LRUCache } from 'lru-cache';
import { isolatedHandlebars, onFirstUse } from './handlebars.js';

/** A template that compiled: render it with `renderTemplate`. */
export interface CompiledTemplate {
  render: Handlebars.TemplateDelegate;
}

export const MAX_TEMPLATE_CHARS = 262_144;
const MAX_OUTPUT_CHARS = 1_048_576;
/** A render may take this long; `{{#each}}` nested over large arrays could otherwise run for minutes. */
export const RENDER_TIME_LIMIT_MS = 250;
const ALLOWED_HELPERS = new Set(['if', 'unless', 'each', 'with']);
const FORBIDDEN_PARTS = new Set(['__proto__', 'constructor', 'prototype', '__defineGetter__', '__defineSetter__', '__lookupGetter__', '__lookupSetter__']);

// An environment of its own: nothing registered elsewhere (helpers, partials) reaches templates.
const handlebars = onFirstUse(isolatedHandlebars);

/**
 * Parses and compiles template code, listing every problem: syntax, partials (no file system),
 * unknown helpers, unescaped output and paths that reach prototypes.
 */
export function compileTemplate(code: string): { ok: true; template: CompiledTemplate } | { ok: false; errors: string[] } {
  if (code.length > MAX_TEMPLATE_CHARS) return { ok: false, errors: [`code: longer than ${MAX_TEMPLATE_CHARS} characters`] };
  let ast: hbs.AST.Program;
  try {
    ast = handlebars().parse(code);
  } catch (err) {
    return { ok: false, errors: [(err as Error).message.replace(/\s+/g, ' ').trim()] };
  }
  const errors: string[] = [];
  walk(ast, errors);
  if (errors.length > 0) return { ok: false, errors };
  const render = handlebars().compile(code, { strict: false, knownHelpersOnly: true, knownHelpers: { if: true, unless: true, each: true, with: true } });
  try {
    render({ data: {} }, RUNTIME);
  } catch (err) {
    return { ok: false, errors: [(err as Error).message.replace(/\s+/g, ' ').trim()] };
  }
  return { ok: true, template: { render } };
}

const RUNTIME: Handlebars.RuntimeOptions = { allowProtoPropertiesByDefault: false, allowProtoMethodsByDefault: false, helpers: {}, partials: {} };

// Compiled templates by code: the delivery worker renders the same few templates again and again.
const compiledByCode = new LRUCache<string, CompiledTemplate | { errors: string[] }>({ max: 200 });

/** `compileTemplate`, remembering the outcome for the same code. */
export function compileTemplateCached(code: string): ReturnType<typeof compileTemplate> {
  let entry = compiledByCode.get(code);
  if (!entry) {
    const compiled = compileTemplate(code);
    entry = compiled.ok ? compiled.template : { errors: compiled.errors };
    compiledByCode.set(code, entry);
  }
  return 'render' in entry ? { ok: true, template: entry } : { ok: false, errors: entry.errors };
}

/** Why a render was stopped: it ran too long or grew too large. */
export class RenderLimitError extends Error {}

/**
 * Renders with the submission's fields under `data`. Time and output are bounded while rendering,
 * not after: every `{{#each}}` iteration checks the clock and the output grown so far.
 */
export function renderTemplate(template: CompiledTemplate, data: Record<string, unknown>): { html: string; text: string } {
  const html = template.render({ data: plainCopy(data) }, { ...RUNTIME, helpers: { each: boundedEach(performance.now() + RENDER_TIME_LIMIT_MS) } });
  if (html.length > MAX_OUTPUT_CHARS) throw new RenderLimitError(`the rendered template is larger than ${MAX_OUTPUT_CHARS} characters`);
  return { html, text: htmlToText(html) };
}

/** The built-in `each`, with every iteration counted against the render's deadline and output cap. */
function boundedEach(deadline: number): Handlebars.HelperDelegate {
  const each = handlebars().helpers.each!;
  let produced = 0;
  return function (this: unknown, context: unknown, options: Handlebars.HelperOptions) {
    const fn = options.fn;
    const counted = Object.assign((item: unknown, frame?: Handlebars.RuntimeOptions) => {
      if (performance.now() > deadline) throw new RenderLimitError(`rendering took longer than ${RENDER_TIME_LIMIT_MS} ms`);
      const out = fn(item, frame);
      produced += out.length;
      if (produced > MAX_OUTPUT_CHARS) throw new RenderLimitError(`the rendered template is larger than ${MAX_OUTPUT_CHARS} characters`);
      return out;
    }, fn);
    return each.call(this, context, { ...options, fn: counted });
  };
}

function at(node: { loc?: hbs.AST.SourceLocation }): string {
  return node.loc ? `line ${node.loc.start.line}, column ${node.loc.start.column + 1}` : 'template';
}

function walk(node: unknown, errors: string[]): void {
  if (!node || typeof node !== 'object') return;
  const n = node as Record<string, any>;
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
      for (const part of n.parts as string[]) if (FORBIDDEN_PARTS.has(part)) errors.push(`${at(n)}: "${part}" cannot be reached from a template`);
      break;
  }
  if ((n.type === 'MustacheStatement' || n.type === 'BlockStatement' || n.type === 'SubExpression') && (n.params?.length > 0 || n.hash)) {
    const name = n.path?.original;
    if (typeof name === 'string' && !ALLOWED_HELPERS.has(name)) errors.push(`${at(n)}: unknown helper "${name}"`);
  }
  for (const value of Object.values(n)) {
    if (Array.isArray(value)) value.forEach((child) => walk(child, errors));
    else if (value && typeof value === 'object' && 'type' in value) walk(value, errors);
  }
}

/** The fields as plain objects without prototypes: nothing but the data is reachable. */
function plainCopy(value: unknown, depth = 0): unknown {
  if (depth > 16) return null;
  if (Array.isArray(value)) return value.map((v) => plainCopy(v, depth + 1));
  if (value && typeof value === 'object') {
    const copy = Object.create(null) as Record<string, unknown>;
    for (const [k, v] of Object.entries(value)) if (!FORBIDDEN_PARTS.has(k)) copy[k] = plainCopy(v, depth + 1);
    return copy;
  }
  return value;
}

const ENTITIES: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#x27;': "'", '&#39;': "'", '&#x3D;': '=', '&#x60;': '`', '&nbsp;': ' ' };

/** A plain-text alternative: tags dropped, block ends as line breaks, entities decoded. */
export function htmlToText(html: string): string {
  return html
    .replace(/<(script|style)[\s\S]*?<\/\1>/gi, '')
    .replace(/<br\s*\/?>/gi, '\n')
    .replace(/<\/(p|div|h[1-6]|li|tr|table)>/gi, '\n')
    .replace(/<li[^>]*>/gi, '- ')
    .replace(/<[^>]+>/g, '')
    .replace(/&[#\w]+;/g, (e) => ENTITIES[e] ?? e)
    .replace(/[ \t]+\n/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
