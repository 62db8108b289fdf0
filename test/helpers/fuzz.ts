import fc from 'fast-check';
import { PROBLEMS, problemAnchor, type ProblemCode } from '../../src/errors.js';
import type { RawAnswer } from './raw-http.js';

/**
 * The seed of a fuzz run: FORMGATE_FUZZ_SEED when set (to replay a failure), else a random one.
 * Printed either way, so every failure can be replayed with the same inputs.
 */
export function fuzzSeed(suite: string): number {
  const given = process.env.FORMGATE_FUZZ_SEED;
  const seed = given !== undefined && given !== '' ? Number(given) : Math.floor(Math.random() * 2 ** 31);
  if (!Number.isInteger(seed)) throw new Error(`FORMGATE_FUZZ_SEED must be an integer, got ${given}`);
  process.stdout.write(`${suite}: fast-check seed ${seed} (replay with FORMGATE_FUZZ_SEED=${seed})\n`);
  return seed;
}

/** The longest one run of a property may take: each sends a request or two and reads the database. */
const RUN_TIMEOUT_MS = 30_000;

/** Keys that poison a prototype when a parser or a merge copies them naively. */
export const PROTOTYPE_KEYS = ['__proto__', 'constructor', 'prototype'] as const;

/** An object whose own enumerable key is `key`, even `__proto__`: JSON.stringify writes it as a key. */
export function objectWith(entries: [string, unknown][]): Record<string, unknown> {
  const object: Record<string, unknown> = {};
  for (const [key, value] of entries) Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
  return object;
}

/** JSON text nested `depth` levels: objects, arrays or both, by one string, never by recursion. */
export function deepJson(depth: number, shape: 'object' | 'array' | 'mixed' = 'object'): string {
  let open = '';
  let close = '';
  for (let i = 0; i < depth; i++) {
    const array = shape === 'array' || (shape === 'mixed' && i % 2 === 1);
    open += array ? '[' : '{"a":';
    close = (array ? ']' : '}') + close;
  }
  return `${open}1${close}`;
}

/** Strings that break parsers, databases and renderers. */
export const nastyString: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '',
    ' ',
    '\u0000',
    'a\u0000b',
    '\ud800',
    'x\udfffy',
    '\ud83d\ude00',
    '\u202e\u2028\u2029',
    '\ufeff',
    '%00',
    '%2F',
    '../../etc/passwd',
    '<script>alert(1)</script>',
    '{{data.x}}',
    '{{#each this}}{{/each}}',
    "' OR 1=1 --",
    '\\',
    '"',
    '\r\nX-Injected: 1',
    'null',
    'undefined',
    '__proto__',
    'constructor',
    'NaN',
    '-0',
    '1e400',
    'é'.normalize('NFD'),
  ),
  fc.string({ maxLength: 40, unit: 'binary' }),
  fc.string({ maxLength: 20, unit: 'grapheme' }),
  fc.constantFrom(129, 257, 513, 2561, 70_000).map((n) => 'x'.repeat(n)),
);

/** Numbers at and past the limits of JSON, doubles and integers. */
export const edgeNumber: fc.Arbitrary<number> = fc.oneof(
  fc.constantFrom(
    0,
    -0,
    -1,
    1,
    0.5,
    100,
    101,
    2 ** 31,
    -(2 ** 31) - 1,
    2 ** 53 + 1,
    Number.MAX_SAFE_INTEGER,
    Number.MAX_VALUE,
    Number.MIN_VALUE,
    Number.EPSILON,
  ),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer(),
);

/** Any JSON value a hostile client might put where another is expected. */
export const wrongValue: fc.Arbitrary<unknown> = fc.oneof(
  nastyString,
  edgeNumber,
  fc.constantFrom(null, true, false, [], {}, [null], { a: {} }),
  fc.array(nastyString, { maxLength: 3 }),
  fc.constantFrom(...PROTOTYPE_KEYS).map((key) => objectWith([[key, { polluted: true }]])),
  fc.jsonValue({ maxDepth: 3 }),
);

/** Bytes that are not UTF-8: a lone continuation byte, an overlong form, an encoded surrogate, 0xFF. */
export const invalidUtf8: fc.Arbitrary<Buffer> = fc
  .constantFrom([0x80], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xff, 0xfe], [0xe2, 0x82], [0xf4, 0x90, 0x80, 0x80])
  .map((bytes) => Buffer.from(bytes));

/** Why `answer` is not a problem document of the catalogue with its status, or null when it is one. */
export function problemDefect(answer: RawAnswer, docsUrl: string, options: { head?: boolean } = {}): string | null {
  const type = answer.headers.get('content-type') ?? '';
  if (!/^application\/problem\+json/.test(type)) return `content-type ${JSON.stringify(type)}, not application/problem+json`;
  if (options.head) return null;
  let body: any;
  try {
    body = JSON.parse(answer.body);
  } catch {
    return `body is not JSON: ${answer.body.slice(0, 200)}`;
  }
  const code = body?.code as ProblemCode;
  const entry = PROBLEMS[code];
  if (!entry) return `unknown code ${JSON.stringify(body?.code)}`;
  if (entry.status !== answer.status || body.status !== answer.status)
    return `code ${code} is ${entry.status}, answered ${answer.status} with status ${body.status}`;
  if (body.title !== entry.title) return `title ${JSON.stringify(body.title)} is not the catalogue's ${entry.title}`;
  if (body.type !== `${docsUrl}#${problemAnchor(code)}`) return `type ${body.type} is not ${docsUrl}#${problemAnchor(code)}`;
  if (typeof body.detail !== 'string' || body.detail.length === 0) return 'detail is missing';
  if ((code === 'validation_error' || code === 'template_invalid') && !(Array.isArray(body.errors) && body.errors.length > 0)) return `${code} without errors`;
  return null;
}

/** Counts of a fuzz run, printed at its end. */
export class FuzzCounts {
  requests = 0;
  badInputs = 0;
  serverErrors = 0;
  refusalsChecked = 0;
  successes = 0;
  unanswered = 0;
  readonly statuses = new Map<number, number>();

  record(status: number | null): void {
    this.requests++;
    if (status === null) {
      this.unanswered++;
      return;
    }
    this.statuses.set(status, (this.statuses.get(status) ?? 0) + 1);
    if (status >= 500) this.serverErrors++;
    else if (status < 400) this.successes++;
  }

  /** "200×3 400×120 …", for the figures. */
  statusSummary(): string {
    return [...this.statuses]
      .sort(([a], [b]) => a - b)
      .map(([status, n]) => `${status}×${n}`)
      .join(' ');
  }
}

/**
 * fc.assert, but a failure is reported in a few lines: the seed and path to replay it and the first
 * lines of what failed. fast-check's own report prints the whole counterexample, and a 2 MB body
 * would drown the log.
 */
export async function assertProperty<T>(property: fc.IAsyncPropertyWithHooks<T> | fc.IAsyncProperty<T>, parameters: fc.Parameters<T>): Promise<void> {
  // a run that never ends (an answer or a query that hangs) fails, naming the seed and the input, before the test's own timeout says nothing
  const details = await fc.check(property, { timeout: RUN_TIMEOUT_MS, ...parameters, endOnFailure: true });
  if (!details.failed) return;
  const cause = details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
  throw new Error(`property failed (seed ${details.seed}, path "${details.counterexamplePath}", after ${details.numRuns} runs):\n${cause.slice(0, 3000)}`);
}
