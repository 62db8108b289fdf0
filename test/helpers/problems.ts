import assert from 'node:assert/strict';
import { PROBLEMS, type ProblemCode } from '../../src/errors.js';
import type { Answer, TestApp } from './app.js';

/**
 * Asserts a whole problem document: status, content type, `type` URL, title, code, a detail, and
 * any extra fields given.
 */
export function assertProblem(app: TestApp, answer: Answer, code: ProblemCode, extra: Record<string, unknown> = {}): void {
  const { status, title } = PROBLEMS[code];
  assert.equal(answer.status, status, `expected ${status} ${code}, got ${answer.status} ${JSON.stringify(answer.body)}`);
  assert.match(answer.headers.get('content-type') ?? '', /^application\/problem\+json/);
  assert.equal(answer.body.type, `${app.publicUrl}/docs/errors#${code.replace(/_/g, '-')}`);
  assert.equal(answer.body.title, title);
  assert.equal(answer.body.status, status);
  assert.equal(answer.body.code, code);
  assert.equal(typeof answer.body.detail, 'string');
  assert.ok(answer.body.detail.length > 0);
  for (const [key, value] of Object.entries(extra)) assert.deepEqual(answer.body[key], value, `problem field ${key}`);
}

/**
 * A 429's headers name the limit that refused, not a budget with room left: X-RateLimit-Limit its
 * size, X-RateLimit-Remaining 0, X-RateLimit-Reset the seconds of Retry-After.
 */
export function assertRefusedBy(answer: { headers: Headers }, limit: number): void {
  const retryAfter = answer.headers.get('retry-after');
  assert.match(retryAfter ?? '', /^\d+$/, 'Retry-After is a number of seconds');
  assert.deepEqual(
    {
      limit: answer.headers.get('x-ratelimit-limit'),
      remaining: answer.headers.get('x-ratelimit-remaining'),
      reset: answer.headers.get('x-ratelimit-reset'),
    },
    { limit: String(limit), remaining: '0', reset: retryAfter },
    'X-RateLimit-* report the limit that refused',
  );
}

/** Asserts a `400 validation_error` whose `errors` includes an entry for each field named. */
export function assertValidation(app: TestApp, answer: Answer, ...fields: string[]): void {
  assertProblem(app, answer, 'validation_error');
  assert.ok(Array.isArray(answer.body.errors) && answer.body.errors.length > 0, 'errors is a non-empty array');
  for (const field of fields) {
    assert.ok(
      answer.body.errors.some((e: string) => e.startsWith(`${field}:`) || e.startsWith(`${field}[`) || e.startsWith(`${field}.`)),
      `errors names ${field}: ${JSON.stringify(answer.body.errors)}`,
    );
  }
}

/** Asserts a JSON (non-problem) answer with this status. */
export function assertJson(answer: Answer, status: number): void {
  assert.equal(answer.status, status, `expected ${status}, got ${answer.status} ${JSON.stringify(answer.body)}`);
  assert.match(answer.headers.get('content-type') ?? '', /^application\/json/);
}

/** Two `not_found` answers that differ only by the id they name: nothing reveals which one exists. */
export function assertSameNotFound(app: TestApp, a: Answer, idA: string, b: Answer, idB: string): void {
  assertProblem(app, a, 'not_found');
  assertProblem(app, b, 'not_found');
  const mask = (body: any, id: string) => ({ ...body, detail: String(body.detail).split(id).join('<id>') });
  assert.deepEqual(mask(a.body, idA), mask(b.body, idB));
}
