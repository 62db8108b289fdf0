import type { Database } from '../db/database.js';
import { dayOf } from '../db/schema/daily-count.js';
import { DAY_MS } from '../domain/time.js';
import type { FormService } from './forms.js';
import type { WorkspaceService } from './workspaces.js';

/** The number of days a chart shows, today (UTC) included. */
export const CHART_DAYS = 30;

/** One day's counts: `day` is days since 1970-01-01 (UTC), as `daily_counts` numbers it. */
export interface DayCount {
  day: number;
  accepted: number;
  spam: number;
}

/** What the workspace's page shows of one form. */
export interface FormSummary {
  /** The last 30 days, oldest first, days with nothing as zeros. */
  days: DayCount[];
  /** This calendar month (UTC): submissions that are not spam (held ones included: they arrived), and spam caught. */
  monthAccepted: number;
  monthSpam: number;
  /** When the form's newest submission (of any status) arrived, or null. */
  lastSubmissionAt: number | null;
}

export interface WorkspaceStats {
  /** The whole workspace's last 30 days (every form, not only the ones asked about). */
  days: DayCount[];
  forms: Map<string, FormSummary>;
}

/**
 * Submissions per day, per form and per workspace, for the dashboard's charts and forms list. Read
 * from `daily_counts` (kept by the writer as submissions are stored), never by counting
 * submissions: a 30-day chart costs at most 30 rows whatever the volume.
 */
export class StatsService {
  constructor(
    private readonly database: Database,
    private readonly workspaces: WorkspaceService,
    private readonly forms: FormService,
  ) {}

  /** A form's last 30 days; `not_found` unless the account belongs to its workspace. */
  async formDays(userId: string, formId: string, now = Date.now()): Promise<DayCount[]> {
    await this.forms.formForMember(userId, formId);
    const { first, today } = window(now);
    const rows = await this.database.db
      .selectFrom('dailyCounts')
      .select(['day', 'accepted', 'spam'])
      .where('formId', '=', formId)
      .where('day', '>=', first)
      .where('day', '<=', today)
      .execute();
    return series(rows, first);
  }

  /**
   * The workspace's last 30 days and, for `formIds` (the forms a page lists), each one's 30 days,
   * this month's counts and last submission: three queries whatever the number of forms.
   * `not_found` unless the account belongs to the workspace; ids of other workspaces' forms are ignored.
   */
  async workspaceStats(userId: string, workspaceId: string, formIds: string[], now = Date.now()): Promise<WorkspaceStats> {
    await this.workspaces.getForMember(userId, workspaceId);
    const { first, today } = window(now);
    const month = monthStart(now);
    const [totals, perForm, last] = await Promise.all([
      this.database.db
        .selectFrom('dailyCounts')
        .select((eb) => ['day', eb.fn.sum<number | string>('accepted').as('accepted'), eb.fn.sum<number | string>('spam').as('spam')])
        .where('workspaceId', '=', workspaceId)
        .where('day', '>=', first)
        .where('day', '<=', today)
        .groupBy('day')
        .execute(),
      formIds.length === 0
        ? []
        : this.database.db
            .selectFrom('dailyCounts')
            .select(['formId', 'day', 'accepted', 'spam'])
            .where('workspaceId', '=', workspaceId)
            .where('formId', 'in', formIds)
            .where('day', '>=', Math.min(first, month))
            .where('day', '<=', today)
            .execute(),
      this.lastSubmissions(workspaceId, formIds),
    ]);
    const forms = new Map<string, FormSummary>();
    for (const formId of formIds) forms.set(formId, { days: [], monthAccepted: 0, monthSpam: 0, lastSubmissionAt: last.get(formId) ?? null });
    const byForm = new Map<string, DayCount[]>();
    for (const row of perForm) {
      const summary = forms.get(row.formId);
      if (!summary) continue;
      if (row.day >= month) {
        summary.monthAccepted += Number(row.accepted);
        summary.monthSpam += Number(row.spam);
      }
      if (row.day >= first) {
        const list = byForm.get(row.formId) ?? [];
        list.push(row);
        byForm.set(row.formId, list);
      }
    }
    for (const [formId, summary] of forms) summary.days = series(byForm.get(formId) ?? [], first);
    return { days: series(totals, first), forms };
  }

  /**
   * Each form's newest submission time: its newest day's `last_at` (daily_counts), one row of the
   * primary key (form_id, day) read backwards per form. (The submissions' own indexes answer it per
   * status only, and PostgreSQL would rather walk the partial index of every form's spam.)
   */
  private async lastSubmissions(workspaceId: string, formIds: string[]): Promise<Map<string, number>> {
    if (formIds.length === 0) return new Map();
    const rows = await this.database.db
      .selectFrom('forms')
      .select('forms.id')
      .select((eb) =>
        eb
          .selectFrom('dailyCounts')
          .select('dailyCounts.lastAt')
          .whereRef('dailyCounts.formId', '=', 'forms.id')
          .orderBy('dailyCounts.day', 'desc')
          .limit(1)
          .as('lastAt'),
      )
      .where('forms.workspaceId', '=', workspaceId)
      .where('forms.id', 'in', formIds)
      .execute();
    const last = new Map<string, number>();
    for (const row of rows) if (row.lastAt !== null && row.lastAt !== undefined) last.set(row.id, Number(row.lastAt));
    return last;
  }
}

/** The chart's days: from 29 days ago to today (UTC), both included. */
function window(now: number): { first: number; today: number } {
  const today = dayOf(now);
  return { first: today - CHART_DAYS + 1, today };
}

/** The first day (UTC) of the calendar month `now` falls in. */
export function monthStart(now: number): number {
  const date = new Date(now);
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1) / DAY_MS;
}

/** Thirty days from `first`, each with its counts (summed, PostgreSQL's sums come as text) or zeros. */
function series(rows: { day: number | string; accepted: number | string; spam: number | string }[], first: number): DayCount[] {
  const days: DayCount[] = Array.from({ length: CHART_DAYS }, (_, i) => ({ day: first + i, accepted: 0, spam: 0 }));
  for (const row of rows) {
    const slot = days[Number(row.day) - first];
    if (!slot) continue;
    slot.accepted += Number(row.accepted);
    slot.spam += Number(row.spam);
  }
  return days;
}
