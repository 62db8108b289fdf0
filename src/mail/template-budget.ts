import type Handlebars from 'handlebars';

/**
 * The most steps one render may take: printed values, loop iterations and conditions
 * (`{{#if}}`, `{{#unless}}`, `{{#with}}`). What a render costs grows with these, so counting them
 * stops a runaway render (loops nested over large lists) at the same point on any machine: about
 * 0.1 s of work on an idle one.
 */
export const MAX_RENDER_STEPS = 100_000;

/** The bounds of one render: its steps, its output, and its time (a safety net) by a clock (a test's own, or the real one). */
export interface RenderLimits {
  timeMs: number;
  outputChars: number;
  /** MAX_RENDER_STEPS when not given. */
  steps?: number;
  now?: () => number;
}

/** Why a render was stopped: it took too many steps, ran too long or grew too large. */
export class RenderLimitError extends Error {
  constructor(
    readonly limit: 'steps' | 'time' | 'output',
    message: string,
  ) {
    super(message);
    this.name = 'RenderLimitError';
  }
}

/**
 * What one render has spent: the characters its output holds so far and its time. Every printed
 * value and every loop iteration is counted as it happens, so a render stops at the limit rather
 * than after it has built a string of hundreds of megabytes.
 */
export class RenderBudget {
  /** Characters already known to be in the output. */
  private used = 0;
  private steps = 0;
  private readonly now: () => number;
  private readonly deadline: number;

  constructor(private readonly limits: RenderLimits) {
    this.now = limits.now ?? (() => performance.now());
    this.deadline = this.now() + limits.timeMs;
  }

  /** Counts one step (a printed value, a loop iteration, a condition); throws past the steps or the time. */
  step(): void {
    this.steps++;
    if (this.steps > (this.limits.steps ?? MAX_RENDER_STEPS))
      throw new RenderLimitError(
        'steps',
        `rendering took more than ${this.limits.steps ?? MAX_RENDER_STEPS} steps (printed values, loop iterations and conditions)`,
      );
    this.checkTime();
  }

  /** Throws once the render has run past its time. */
  checkTime(): void {
    if (this.now() > this.deadline) throw new RenderLimitError('time', `rendering took longer than ${this.limits.timeMs} ms`);
  }

  /** Counts `chars` more characters of output. */
  add(chars: number): void {
    this.used += chars;
    this.checkOutput(this.used);
  }

  /** Where the count stands, to settle a loop iteration against with `settle`. */
  mark(): number {
    return this.used;
  }

  /** A loop iteration begun at `mark` produced `chars` characters, the values it printed included. */
  settle(mark: number, chars: number): void {
    this.used = mark + chars;
    this.checkOutput(this.used);
  }

  /** Throws when an output of `chars` characters is over the limit. */
  checkOutput(chars: number): void {
    if (chars > this.limits.outputChars) throw new RenderLimitError('output', `the rendered template is larger than ${this.limits.outputChars} characters`);
  }
}

/** `helper`, with a step counted at each call. */
function counted(helper: Handlebars.HelperDelegate, budget: RenderBudget): Handlebars.HelperDelegate {
  return function (this: unknown, ...args: Parameters<Handlebars.HelperDelegate>) {
    budget.step();
    return helper.apply(this, args);
  };
}

/** The helper every `{{value}}` is rewritten to call: prints any value, counted against the budget. */
export const PRINT_HELPER = 'formgate:print';
/** In a JSON webhook body, a `{{value}}` outside a JSON string: the value as JSON (`"text"`, `3`, `[…]`, `{…}`, `null`). */
export const JSON_VALUE_HELPER = 'formgate:json-value';

/** How printed text is made safe where it lands: HTML, nothing (a subject), or a webhook body's JSON string or form value. */
export type PrintEscape = 'html' | 'none' | 'json-string' | 'url';

const ESCAPES: Record<Exclude<PrintEscape, 'html'>, (text: string) => string> = {
  none: (text) => text,
  // the inside of a JSON string: quotes, backslashes and control characters escaped, as JSON.stringify writes them
  'json-string': (text) => JSON.stringify(text).slice(1, -1),
  url: (text) => encodeURIComponent(text),
};

/**
 * The helpers of one render: `print` (see `printable`), and `each` and the sections over arrays
 * (`{{#data.list}}`) with every iteration counted against the budget. `escape` says how a printed
 * value is made safe: HTML-escaped (an email), as it is (a subject line), or for a webhook body.
 */
export function budgetedHelpers(hbs: typeof Handlebars, budget: RenderBudget, escaping: PrintEscape = 'html'): Record<string, Handlebars.HelperDelegate> {
  const each = hbs.helpers.each!;
  const boundedEach = function (this: unknown, context: unknown, options: Handlebars.HelperOptions) {
    const fn = options.fn;
    const counted = Object.assign((item: unknown, frame?: Handlebars.RuntimeOptions) => {
      budget.step();
      const mark = budget.mark();
      const out = fn(item, frame);
      budget.settle(mark, out.length);
      return out;
    }, fn);
    return each.call(this, context, { ...options, fn: counted });
  };
  return {
    [PRINT_HELPER]: (...args: unknown[]) => {
      // called as a block or without a value (`{{#formgate:print}}`), it prints nothing
      if (args.length !== 2) return '';
      budget.step();
      const text = printable(args[0]);
      budget.checkOutput(budget.mark() + text.length);
      const html = escaping === 'html' ? hbs.escapeExpression(text) : ESCAPES[escaping](text);
      budget.add(html.length);
      return new hbs.SafeString(html);
    },
    [JSON_VALUE_HELPER]: (...args: unknown[]) => {
      if (args.length !== 2) return '';
      budget.step();
      // a field not sent is null; anything else as it is, in JSON (the data came from JSON: nothing it holds fails to print)
      const json = args[0] === undefined ? 'null' : JSON.stringify(args[0]);
      budget.add(json.length);
      return new hbs.SafeString(json);
    },
    each: boundedEach,
    // the conditions count a step each: a loop of conditions that print nothing still ends at the limit
    if: counted(hbs.helpers.if!, budget),
    unless: counted(hbs.helpers.unless!, budget),
    with: counted(hbs.helpers.with!, budget),
    // Handlebars' own, but with arrays through the bounded `each`: `{{#data.list}}…{{/data.list}}` loops too
    blockHelperMissing: function (this: unknown, context: unknown, options: Handlebars.HelperOptions) {
      if (context === true) return options.fn(this);
      if (context === false || context == null) return options.inverse(this);
      if (Array.isArray(context)) return context.length > 0 ? boundedEach.call(this, context, options) : options.inverse(this);
      return options.fn(context, options);
    },
  };
}

/**
 * How a value prints: text as it is, numbers and booleans as written, nothing for null; a list of
 * plain values joined by ", "; an object (or a list holding objects) as `name: value` lines, nested
 * names dotted, as in the default layout's plain text (docs/templates.md).
 */
export function printable(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value !== 'object') return String(value);
  if (Array.isArray(value) && value.every(isPlain)) return value.map(printable).join(', ');
  const lines: string[] = [];
  const walk = (name: string, v: unknown) => {
    if (isPlain(v) || (Array.isArray(v) && v.every(isPlain))) lines.push(`${name}: ${printable(v)}`);
    else if (Array.isArray(v))
      v.forEach((item, i) => {
        walk(`${name}[${i}]`, item);
      });
    else for (const [key, item] of Object.entries(v as object)) walk(name ? `${name}.${key}` : key, item);
  };
  if (Array.isArray(value))
    value.forEach((item, i) => {
      walk(`[${i}]`, item);
    });
  else for (const [key, item] of Object.entries(value)) walk(key, item);
  return lines.join('\n');
}

function isPlain(value: unknown): boolean {
  return value === null || typeof value !== 'object';
}
