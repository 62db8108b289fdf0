import type { Generated } from 'kysely';

/** What a workspace taught the spam filter (migration 0029): the submissions it learned from, and its token rows. */
export interface SpamModelTable {
  workspaceId: string;
  spamMessages: Generated<number>;
  hamMessages: Generated<number>;
  tokens: Generated<number>;
}

/** One token's counts in a workspace's lessons; `token` is a 53-bit hash of the word (spam/token-hash.ts). */
export interface SpamTokenTable {
  workspaceId: string;
  token: number;
  spam: Generated<number>;
  ham: Generated<number>;
  learnedAt: number;
}
