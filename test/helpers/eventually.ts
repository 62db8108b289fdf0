import assert from 'node:assert/strict';

/**
 * How long a wait for a state may last before the state counts as never coming: a hang detector,
 * far past what any state here takes on a busy machine, so that a slow machine is never a failure.
 */
export const WAIT_DEADLINE_MS = 30_000;

/**
 * Waits, with a deadline, until `check` gives a value (work that runs in the background: a worker,
 * a server in another process); polls every `everyMs`. No test sleeps for a fixed time instead.
 */
export async function eventually<T>(check: () => Promise<T | null | undefined | false>, what: string, deadlineMs = WAIT_DEADLINE_MS, everyMs = 20): Promise<T> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/** Waits, with a deadline, until `condition` holds. */
export async function until(what: string, condition: () => boolean | Promise<boolean>, deadlineMs = WAIT_DEADLINE_MS, everyMs = 20): Promise<void> {
  await eventually(async () => await condition(), what, deadlineMs, everyMs);
}
