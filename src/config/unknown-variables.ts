import { ConfigError } from './checks.js';
import { serverVariables } from './env.js';

/** At most this many edits from a name Formgate reads, an unknown FORMGATE_* name is taken for a misspelling of it. */
export const MISSPELLING_EDITS = 2;

/**
 * FORMGATE_* names read outside the server, so not misspellings: the npm scripts' (the Node.js
 * toolchain), the test suite's, the container test's and the benchmark's, and those the
 * documentation's examples export. test/unit/known-variables.test.ts finds any name missing here.
 */
export const VARIABLES_READ_ELSEWHERE = [
  'FORMGATE_NODE_TOOLCHAIN',
  'FORMGATE_NODE_CACHE',
  'FORMGATE_TEST_DB',
  'FORMGATE_TEST_PG_URL',
  'FORMGATE_TEST_CONCURRENCY',
  'FORMGATE_TEST_LOG',
  'FORMGATE_TEST_KEEP_LOG',
  'FORMGATE_TEST_NGINX',
  'FORMGATE_TEST_OLD_NODE',
  'FORMGATE_TEST_SCREENSHOTS',
  'FORMGATE_TEST_RUN',
  'FORMGATE_FUZZ_SEED',
  'FORMGATE_CONTAINER_CACHE',

  'FORMGATE_BENCH_SERVE_FLAGS',
  'FORMGATE_BENCH_PG_URL',
  'FORMGATE_BENCH_ONLY',
  'FORMGATE_BENCH_DURATION',
  'FORMGATE_BENCH_DIALECTS',
  'FORMGATE_BENCH_WARMUP',
  'FORMGATE_BENCH_METRICS',
  'FORMGATE_BENCH_ROUNDS',
  'FORMGATE_TOKEN',
  'FORMGATE_WEBHOOK_SECRET',
] as const;

/** Every FORMGATE_* name something in the project reads. */
export function knownVariables(): string[] {
  return [...serverVariables(), ...VARIABLES_READ_ELSEWHERE];
}

/** The set FORMGATE_* names nothing reads, sorted. */
function unknownNames(env: NodeJS.ProcessEnv, known: readonly string[]): string[] {
  return Object.keys(env)
    .filter((name) => name.startsWith('FORMGATE_') && !known.includes(name))
    .sort();
}

/** The known name within MISSPELLING_EDITS of `name`, if any. */
function misspeltFrom(name: string, known: readonly string[]): string | null {
  const closest = closestName(name, known);
  return closest !== null && editDistance(name, closest) <= MISSPELLING_EDITS ? closest : null;
}

/**
 * Stops the program (a ConfigError: exit code 2) when a set FORMGATE_* variable nothing reads is one
 * or two edits from one it reads: left unread, a misspelt FORMGATE_DATABASE_URL started an instance
 * on a new, empty SQLite file, which took half the submissions behind a load balancer.
 */
export function refuseMisspeltVariables(env: NodeJS.ProcessEnv, known: readonly string[] = knownVariables()): void {
  const misspelt = unknownNames(env, known).flatMap((name) => {
    const meant = misspeltFrom(name, known);
    return meant ? [`${name} is not a variable Formgate reads: did you mean ${meant}?`] : [];
  });
  if (misspelt.length === 0) return;
  throw new ConfigError(
    `${misspelt.join('; ')} Formgate does not start with a misspelt variable, since the setting it was meant for would silently take its default; correct the name or remove the variable.`,
  );
}

/**
 * One warning per FORMGATE_* variable that is set, that nothing reads and that is not a
 * misspelling (refuseMisspeltVariables stops on those), with the closest known name if any. A
 * warning, not a refusal: a variable of a newer version left in place while rolling back, or one a
 * deployment tool sets for its own use, must not stop a server from starting.
 */
export function unknownVariableWarnings(env: NodeJS.ProcessEnv, known: readonly string[] = knownVariables()): string[] {
  return unknownNames(env, known)
    .filter((name) => misspeltFrom(name, known) === null)
    .map((name) => {
      const closest = closestName(name, known);
      return `${name} is not a variable Formgate reads, so it has no effect${closest ? `: did you mean ${closest}?` : ''}`;
    });
}

/** The known name nearest to `name` when it is near enough to be a misspelling of it. */
export function closestName(name: string, known: readonly string[]): string | null {
  let best: string | null = null;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const candidate of known) {
    const distance = editDistance(name, candidate);
    if (distance < bestDistance) [best, bestDistance] = [candidate, distance];
  }
  const suffix = name.length - 'FORMGATE_'.length;
  return bestDistance <= Math.max(2, Math.floor(suffix / 3)) ? best : null;
}

/** Damerau–Levenshtein distance (optimal string alignment): a swap of two neighbours counts as one edit. */
export function editDistance(a: string, b: string): number {
  // three rows of the table are all the recurrence looks back at
  let before = new Array<number>(b.length + 1).fill(0);
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, before[j - 2]! + 1);
      row.push(d);
    }
    [before, previous] = [previous, row];
  }
  return previous[b.length]!;
}
