import type { Selectable } from 'kysely';
import type { HookEvent } from '../../domain/hooks.js';

/** A workspace's automation-tool key (migration 0038): its hash, never the key. */
export interface AutomationKeyTable {
  id: string;
  workspaceId: string;
  /** The member who made it: the key acts as them, in its workspace only. */
  createdBy: string;
  name: string;
  /** SHA-256 of the key, hex. */
  keyHash: string;
  lastUsedAt: number | null;
  revokedAt: number | null;
  createdAt: number;
}
export type AutomationKeyRow = Selectable<AutomationKeyTable>;

/** A REST-hook subscription (migration 0038): an event of a form, or of every form of the workspace, posted to `targetUrl`. */
export interface HookTable {
  id: string;
  workspaceId: string;
  /** Null: every form of the workspace. */
  formId: string | null;
  event: HookEvent;
  targetUrl: string;
  /** Its Standard Webhooks signing secret (`whsec_…`), shown once when it is made. */
  secret: string;
  createdBy: string;
  /** The API token or the automation-tool key it was made with (one of them): it goes with it. */
  tokenId: string | null;
  automationKeyId: string | null;
  lastTriedAt: number | null;
  /** `ok` or `failed`: how its last delivery went; null before the first. */
  lastStatus: 'ok' | 'failed' | null;
  lastError: string | null;
  createdAt: number;
}
export type HookRow = Selectable<HookTable>;
