import { sql } from 'kysely';
import { setTimeout as sleep } from 'node:timers/promises';
import type { DatabaseConfig } from '../config/config.js';
import { type Database, describeDatabase } from './database.js';

/** Where a starting instance says what it waits for: the server's logger, or stderr for a command. */
export interface StartupLog {
  info(message: string): void;
}

const FIRST_DELAY_MS = 500;
// NOTE: pg waits on a connect as long as the kernel does (minutes, for a host that drops packets);
// an attempt is given up after this, and its connection left to fail on its own.
const ATTEMPT_TIMEOUT_MS = 10_000;
const LONGEST_DELAY_MS = 5_000;
// Not there yet (refused, no such host yet, reset), or there but still starting (57P03).
const NOT_YET = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', '57P03']);

/** Whether the error says the server is not reachable yet, rather than that it refused us (a password, a missing database). */
export function notReachableYet(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  if (typeof code === 'string' && NOT_YET.has(code)) return true;
  return /Connection terminated unexpectedly/.test((error as Error)?.message ?? '');
}

/**
 * Waits until PostgreSQL answers, retrying from half a second, doubling up to 5 s, for at most
 * `waitMs` (0: not at all), one line per attempt: in a container started beside its database, the
 * database is often still starting. What stays is what the last attempt failed with, naming the database.
 */
export async function waitForDatabase(database: Database, config: DatabaseConfig, waitMs: number, log: StartupLog): Promise<void> {
  if (config.dialect !== 'postgres') return;
  const deadline = Date.now() + waitMs;
  let delay = FIRST_DELAY_MS;
  for (let attempt = 1; ; attempt++) {
    try {
      await answerWithin(sql`select 1`.execute(database.db), Math.max(1_000, Math.min(ATTEMPT_TIMEOUT_MS, deadline - Date.now())));
      if (attempt > 1) log.info(`PostgreSQL at ${describeDatabase(config)} answers`);
      return;
    } catch (error) {
      const left = deadline - Date.now();
      if (!notReachableYet(error) || left <= 0) {
        const waited = attempt > 1 ? ` (waited ${Math.round(waitMs / 1000)} s)` : '';
        throw new Error(`cannot reach PostgreSQL at ${describeDatabase(config)}${waited}: ${(error as Error).message}`, { cause: error });
      }
      const pause = Math.min(delay, left);
      log.info(
        `waiting for PostgreSQL at ${describeDatabase(config)} (${(error as Error).message}): attempt ${attempt}, next in ${(pause / 1000).toFixed(1)} s, ${Math.ceil(left / 1000)} s left (FORMGATE_STARTUP_WAIT)`,
      );
      await sleep(pause);
      delay = Math.min(delay * 2, LONGEST_DELAY_MS);
    }
  }
}

function answerWithin<T>(query: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(Object.assign(new Error(`no answer within ${ms / 1000} s`), { code: 'ETIMEDOUT' })), ms);
  });
  query.catch(() => undefined); // settled after the race was lost: nobody waits on it any more
  return Promise.race([query, timeout]).finally(() => clearTimeout(timer));
}
