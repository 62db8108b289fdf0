import type { Database } from '../db/database.js';
import { type DeliveriesPause, readDeliveriesPause } from '../db/deliveries-setting.js';

/** How often an instance reads the switch again: every instance sees a pause or a resume within this. */
export const SWITCH_REFRESH_MS = 2_000;

/** Whether deliveries are paused, and by what: FORMGATE_DELIVERIES=paused (`environment`) or the database's row. */
export interface DeliveriesState {
  paused: boolean;
  source: 'environment' | 'database' | null;
  /** The database's pause, when there is one (even while the environment pauses too). */
  pause: DeliveriesPause | null;
}

/**
 * The installation-wide switch that holds every delivery (jobs wait in the outbox, submissions are
 * still taken): read from the `settings` row at most every SWITCH_REFRESH_MS, concurrent askers
 * sharing one query, so the worker's polls, `/healthz`, `/metrics` and the dashboard cost the
 * database one tiny read every two seconds. Submissions never ask it.
 */
export class DeliverySwitch {
  private state: DeliveriesState;
  private readAt = Number.NEGATIVE_INFINITY;
  private reading: Promise<DeliveriesState> | null = null;
  private readonly listeners = new Set<(state: DeliveriesState) => void>();
  private heard = false;

  constructor(
    private readonly database: Database,
    private readonly options: { environmentPaused: boolean; refreshMs?: number; now?: () => number },
  ) {
    this.state = stateOf(options.environmentPaused, null);
  }

  /** The state, read again when the last reading is older than the refresh time. A failed read keeps the last state. */
  async read(): Promise<DeliveriesState> {
    const now = (this.options.now ?? Date.now)();
    if (now - this.readAt < (this.options.refreshMs ?? SWITCH_REFRESH_MS)) return this.state;
    this.reading ??= this.query(now).finally(() => (this.reading = null));
    return this.reading;
  }

  /** Reads at once (after this process changed the row). */
  refresh(): Promise<DeliveriesState> {
    this.readAt = Number.NEGATIVE_INFINITY;
    return this.read();
  }

  async paused(): Promise<boolean> {
    return (await this.read()).paused;
  }

  /** Told of each change after the first reading: the serve's log lines. */
  onChange(listener: (state: DeliveriesState) => void): void {
    this.listeners.add(listener);
  }

  private async query(now: number): Promise<DeliveriesState> {
    let pause: DeliveriesPause | null;
    try {
      pause = await readDeliveriesPause(this.database.db);
    } catch {
      return this.state; // the worker's claim fails too and says why; the next read tries again
    }
    const next = stateOf(this.options.environmentPaused, pause);
    const changed = this.heard && this.state.paused !== next.paused;
    this.heard = true;
    this.state = next;
    this.readAt = now;
    if (changed) for (const listener of this.listeners) listener(next);
    return next;
  }
}

function stateOf(environmentPaused: boolean, pause: DeliveriesPause | null): DeliveriesState {
  if (environmentPaused) return { paused: true, source: 'environment', pause };
  return { paused: pause !== null, source: pause ? 'database' : null, pause };
}
