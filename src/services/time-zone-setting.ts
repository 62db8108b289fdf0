import type { Database } from '../db/database.js';
import { isTimeZone } from '../domain/time-zones.js';
import { validationError } from '../errors.js';

/** The account's time zone for the dashboard's times (`users.time_zone`; null: the browser's). */
export class TimeZoneSetting {
  constructor(private readonly database: Database) {}

  /** Saves an IANA zone name, or '' for the browser's own; an unknown name changes nothing (`validation_error`). */
  async set(userId: string, zone: string): Promise<string | null> {
    const stored = zone.trim() === '' ? null : zone.trim();
    if (stored !== null && !isTimeZone(stored))
      throw validationError([`timeZone: ${zone.slice(0, 64)} is not a time zone this server knows`], 'Unknown time zone.');
    await this.database.db.updateTable('users').set({ timeZone: stored }).where('id', '=', userId).execute();
    return stored;
  }
}
