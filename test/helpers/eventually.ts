import assert from 'node:assert/strict';

/**
 * Waits, with a deadline, until `check` gives a value (work that runs in the background: a worker,
 * a server in another process); polls every `everyMs`. No test sleeps for a fixed time instead.
 */
export async function eventually<T>(check: () => Promise<T | null | undefined | false>, what: string, deadlineMs = 10_000, everyMs = 20): Promise<T> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/** Waits, with a deadline, until `condition` holds. */
export async function until(what: string, condition: () => boolean | Promise<boolean>, deadlineMs = 10_000, everyMs = 20): Promise<void> {
  await eventually(async () => await condition(), what, deadlineMs, everyMs);
}
