import { sql } from 'kysely';
import type { Database } from '../db/database.js';
import { clearDeliveriesPause, writeDeliveriesPause } from '../db/deliveries-setting.js';
import type { DeliveriesState, DeliverySwitch } from '../jobs/delivery-switch.js';
import type { AuditLog } from './audit-log.js';

/** Pending deliveries are counted up to this many: past it the count says "at least". */
export const WAITING_COUNT_CAP = 100_000;

/** The switch as an operator sees it: paused or not, by what, and how many deliveries wait. */
export interface DeliveriesStatus extends DeliveriesState {
  /** Deliveries pending (due now or later), up to WAITING_COUNT_CAP. */
  waiting: number;
  waitingCapped: boolean;
}

/**
 * Pausing and resuming every instance's deliveries (the CLI and the admin page): a restored copy
 * starts paused so that a staging copy emails no one, and an operator can hold everything during
 * an incident. Submissions are still taken while paused; their deliveries wait, none is lost.
 */
export class DeliveryPauseService {
  constructor(
    private readonly database: Database,
    private readonly deliverySwitch: DeliverySwitch,
    private readonly audit: AuditLog,
  ) {}

  async status(): Promise<DeliveriesStatus> {
    const [state, waiting] = await Promise.all([this.deliverySwitch.read(), this.countWaiting()]);
    return { ...state, waiting, waitingCapped: waiting >= WAITING_COUNT_CAP };
  }

  /** Pauses every instance (each sees it within SWITCH_REFRESH_MS); pausing again changes nothing. */
  async pause(by: string): Promise<DeliveriesStatus> {
    await writeDeliveriesPause(this.database.db, by);
    await this.audit.record({ action: 'instance.deliveries_paused', details: { by } });
    await this.deliverySwitch.refresh();
    return this.status();
  }

  /** Lets every instance deliver again, what waited first; an instance with FORMGATE_DELIVERIES=paused stays paused. */
  async resume(): Promise<DeliveriesStatus & { wasPaused: boolean }> {
    const wasPaused = await clearDeliveriesPause(this.database.db);
    if (wasPaused) await this.audit.record({ action: 'instance.deliveries_resumed' });
    await this.deliverySwitch.refresh();
    return { ...(await this.status()), wasPaused };
  }

  private async countWaiting(): Promise<number> {
    // NOTE: capped, as the backlog is: an admin page must not count a million rows one by one
    const { rows } = await sql<{ n: number | string }>`select count(*) as n from (
      select 1 from jobs where status = 'pending' limit ${WAITING_COUNT_CAP}
    ) as waiting`.execute(this.database.db);
    return Number(rows[0]?.n ?? 0);
  }
}
