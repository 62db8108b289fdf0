import { hash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { LRUCache } from 'lru-cache';
import type { Finding, ScannedField } from '../score-rules.js';

/** A message seen from this many client addresses within the window, on one form, is a campaign. */
export const SAME_MESSAGE_ADDRESSES = 5;
export const SAME_MESSAGE_WINDOW_MS = 60 * 60_000;
/** Points for it: spam whatever else is found, as the owner turned the check on for this form. */
export const SAME_MESSAGE_POINTS = 10;
/** A message shorter than this is not compared: "yes", "ok" or a name are the same from many honest people. */
export const SAME_MESSAGE_MIN_CHARS = 40;
const DEFAULT_MAX_TRACKED = 10_000;
const WHITESPACE = /\s+/g;

/** Where the signal remembers which addresses sent each (form, message) pair, and when. */
export interface SameMessageLog {
  /** Notes `address` sending `key` at `now`; answers how many distinct addresses sent it within the window, this one included (at most SAME_MESSAGE_ADDRESSES). */
  sentFrom(key: string, address: string, now: number): number | Promise<number>;
}

/** In this process: the `maxTracked` most recently seen messages, each with its last few addresses. */
export class MemorySameMessageLog implements SameMessageLog {
  private readonly recent: LRUCache<string, Map<string, number>>;

  constructor(maxTracked = DEFAULT_MAX_TRACKED) {
    this.recent = new LRUCache({ max: Math.max(1, maxTracked) });
  }

  sentFrom(key: string, address: string, now: number): number {
    const senders = this.recent.get(key) ?? new Map<string, number>();
    for (const [sender, time] of senders) if (now - time >= SAME_MESSAGE_WINDOW_MS) senders.delete(sender);
    senders.delete(address); // re-inserted last: the Map keeps the most recent senders at its end
    senders.set(address, now);
    while (senders.size > SAME_MESSAGE_ADDRESSES) senders.delete(senders.keys().next().value!);
    this.recent.set(key, senders);
    return senders.size;
  }
}

/**
 * In Redis, shared by every instance: one sorted set per (form, message) of the addresses that sent
 * it, scored by time, trimmed to the window and to the last SAME_MESSAGE_ADDRESSES, expiring with the
 * window; one round trip. While Redis is not answering, the process's own log counts instead.
 */
export class RedisSameMessageLog implements SameMessageLog {
  constructor(
    private readonly redis: Redis,
    private readonly fallback: MemorySameMessageLog,
    private readonly keyPrefix = 'same-message:',
  ) {}

  async sentFrom(key: string, address: string, now: number): Promise<number> {
    if (this.redis.status !== 'ready') return this.fallback.sentFrom(key, address, now);
    const set = this.keyPrefix + key;
    try {
      const replies = await this.redis
        .multi()
        .zremrangebyscore(set, '-inf', now - SAME_MESSAGE_WINDOW_MS)
        .zadd(set, now, address)
        .zremrangebyrank(set, 0, -SAME_MESSAGE_ADDRESSES - 1)
        .zcard(set)
        .pexpire(set, SAME_MESSAGE_WINDOW_MS)
        .exec();
      const [error, count] = replies?.[3] ?? [new Error('no reply')];
      if (error) throw error;
      return Number(count);
    } catch {
      return this.fallback.sentFrom(key, address, now);
    }
  }
}

/**
 * The message of a submission: its longest value, lower case with its spacing folded, hashed (the
 * text itself is never kept). Null when it is too short to tell a campaign from common words.
 */
export function messageHash(fields: ScannedField[]): string | null {
  let longest = '';
  for (const field of fields) if (field.text.length > longest.length) longest = field.text;
  const message = longest.toLowerCase().replace(WHITESPACE, ' ').trim();
  return message.length < SAME_MESSAGE_MIN_CHARS ? null : hash('sha256', message, 'base64url');
}

/** Counts this sending of the message on its form; a finding from the SAME_MESSAGE_ADDRESSES-th distinct address on. */
export async function sameMessageFindings(log: SameMessageLog, formId: string, fields: ScannedField[], visitorKey: string, now: number): Promise<Finding[]> {
  const message = messageHash(fields);
  if (message === null) return [];
  const addresses = await log.sentFrom(`${formId} ${message}`, visitorKey, now);
  if (addresses < SAME_MESSAGE_ADDRESSES) return [];
  return [
    {
      points: SAME_MESSAGE_POINTS,
      reason: `same message from ${SAME_MESSAGE_ADDRESSES} or more addresses within ${SAME_MESSAGE_WINDOW_MS / 60_000} minutes`,
      decisive: true,
    },
  ];
}
