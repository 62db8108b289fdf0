import type { Logger } from 'pino';

/** At most one line per workspace this often: a flood of spam at a full folder would otherwise log each post. */
const EVERY_MS = 60_000;

/**
 * Logs spam dropped because its workspace's spam folder is full (issue 38, item 5): the first drop
 * of a workspace at once, then at most one line a minute with how many were dropped meanwhile.
 */
export class SpamDropLog {
  private readonly workspaces = new Map<string, { at: number; since: number }>();

  note(log: Logger, workspaceId: string, formId: string, now = Date.now()): void {
    const seen = this.workspaces.get(workspaceId);
    if (seen && now - seen.at < EVERY_MS) {
      seen.since++;
      return;
    }
    log.warn({ workspaceId, formId, dropped: (seen?.since ?? 0) + 1 }, 'spam dropped: the workspace’s spam folder is full');
    this.workspaces.set(workspaceId, { at: now, since: 0 });
    // forget workspaces not heard of for a while, so the map stays small
    if (this.workspaces.size > 1000) for (const [id, entry] of this.workspaces) if (now - entry.at >= EVERY_MS) this.workspaces.delete(id);
  }
}
