import { sql } from 'kysely';
import type { Database } from '../db/database.js';
import { PreparedListQuery } from '../db/prepared-list-query.js';
import { dayOf } from '../db/schema/daily-count.js';
import { DAY_MS } from '../domain/time.js';
import { ProblemError } from '../errors.js';
import type { FormService } from './forms.js';

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
  /**
   * workspaceStats' rows as one UNION ALL, told apart by `kind` (one round trip on PostgreSQL, not
   * four): `member` (a row only if the account belongs to the workspace), `total` (the workspace's
   * days), `day` (the listed forms' days since `from`) and `last` (each listed form's newest
   * submission time: its newest day's `last_at`, one row of the primary key (form_id, day) read
   * backwards per form; the submissions' own indexes answer it per status only, and PostgreSQL
   * would rather walk the partial index of every form's spam).
   */
  private readonly statsRows = new PreparedListQuery((db, { userId, workspaceId, from, first, today }: StatsParams, formIds) => {
    // NOTE: typed nulls: PostgreSQL types a UNION's columns from its first branch
    const noNumber = sql<number | string | null>`cast(null as bigint)`;
    const member = db
      .selectFrom('workspaceMembers')
      .select([
        sql<StatsRowKind>`'member'`.as('kind'),
        sql<string | null>`cast(null as text)`.as('formId'),
        noNumber.as('day'),
        noNumber.as('accepted'),
        noNumber.as('spam'),
        noNumber.as('lastAt'),
      ])
      .where('workspaceMembers.workspaceId', '=', workspaceId)
      .where('workspaceMembers.userId', '=', userId);
    const totals = db
      .selectFrom('dailyCounts')
      .select((eb) => [
        sql<StatsRowKind>`'total'`.as('kind'),
        sql<string | null>`cast(null as text)`.as('formId'),
        'day',
        eb.fn.sum<number | string>('accepted').as('accepted'),
        eb.fn.sum<number | string>('spam').as('spam'),
        noNumber.as('lastAt'),
      ])
      .where('dailyCounts.workspaceId', '=', workspaceId)
      .where('dailyCounts.day', '>=', first)
      .where('dailyCounts.day', '<=', today)
      .groupBy('day');
    const perForm = db
      .selectFrom('dailyCounts')
      .select([sql<StatsRowKind>`'day'`.as('kind'), 'formId', 'day', 'accepted', 'spam', noNumber.as('lastAt')])
      .where('dailyCounts.workspaceId', '=', workspaceId)
      .where('dailyCounts.formId', 'in', formIds)
      .where('dailyCounts.day', '>=', from)
      .where('dailyCounts.day', '<=', today);
    const last = db
      .selectFrom('forms')
      .select((eb) => [
        sql<StatsRowKind>`'last'`.as('kind'),
        'forms.id as formId',
        noNumber.as('day'),
        noNumber.as('accepted'),
        noNumber.as('spam'),
        eb
          .selectFrom('dailyCounts')
          .select('dailyCounts.lastAt')
          .whereRef('dailyCounts.formId', '=', 'forms.id')
          .orderBy('dailyCounts.day', 'desc')
          .limit(1)
          .as('lastAt'),
      ])
      .where('forms.workspaceId', '=', workspaceId)
      .where('forms.id', 'in', formIds);
    return member.unionAll(totals).unionAll(perForm).unionAll(last);
  });

  constructor(
    private readonly database: Database,
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
   * this month's counts and last submission: one statement whatever the number of forms.
   * `not_found` unless the account belongs to the workspace; ids of other workspaces' forms are ignored.
   */
  async workspaceStats(userId: string, workspaceId: string, formIds: string[], now = Date.now()): Promise<WorkspaceStats> {
    const { first, today } = window(now);
    const month = monthStart(now);
    const rows = await this.statsRows.execute(this.database.db, { userId, workspaceId, from: Math.min(first, month), first, today }, formIds);
    if (!rows.some((row) => row.kind === 'member')) throw new ProblemError('not_found', `Workspace ${workspaceId} was not found.`);
    const forms = new Map<string, FormSummary>();
    for (const formId of formIds) forms.set(formId, { days: [], monthAccepted: 0, monthSpam: 0, lastSubmissionAt: null });
    const totals: DayRow[] = [];
    const byForm = new Map<string, DayRow[]>();
    for (const row of rows) {
      if (row.kind === 'total') totals.push(row as DayRow);
      const summary = row.formId === null ? undefined : forms.get(row.formId);
      if (!summary) continue;
      if (row.kind === 'last' && row.lastAt !== null) summary.lastSubmissionAt = Number(row.lastAt);
      if (row.kind !== 'day') continue;
      const day = Number(row.day);
      if (day >= month) {
        summary.monthAccepted += Number(row.accepted);
        summary.monthSpam += Number(row.spam);
      }
      if (day >= first) {
        const list = byForm.get(row.formId!) ?? [];
        list.push(row as DayRow);
        byForm.set(row.formId!, list);
      }
    }
    for (const [formId, summary] of forms) summary.days = series(byForm.get(formId) ?? [], first);
    return { days: series(totals, first), forms };
  }
}

type StatsParams = { userId: string; workspaceId: string; from: number; first: number; today: number };
type StatsRowKind = 'member' | 'total' | 'day' | 'last';
type DayRow = { day: number | string; accepted: number | string; spam: number | string };

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
