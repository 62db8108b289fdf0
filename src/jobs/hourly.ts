import type { Logger } from 'pino';

const EVERY_MS = 60 * 60 * 1000;

/**
 * Runs `task` at start and then every hour in this instance (each instance runs its own; the tasks
 * are safe side by side). A failure is logged as `failure` and tried again at the next hour.
 * Returns what stops it.
 */
export function runHourly(task: () => Promise<void>, log: Logger, failure: string): () => void {
  return runEvery(EVERY_MS, task, log, failure);
}

/** As runHourly, every `everyMs`. */
export function runEvery(everyMs: number, task: () => Promise<void>, log: Logger, failure: string): () => void {
  const run = async () => {
    try {
      await task();
    } catch (err) {
      log.error({ err }, `${failure}; trying again in ${everyMs === EVERY_MS ? 'an hour' : `${Math.round(everyMs / 60_000)} minutes`}`);
    }
  };
  void run();
  const timer = setInterval(() => void run(), everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
