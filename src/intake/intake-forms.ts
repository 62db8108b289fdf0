import { LRUCache } from 'lru-cache';
import type { FormService, IntakeForm } from '../services/forms.js';
import { SingleFlight } from './single-flight.js';

/**
 * The forms intake looks up, one per submission. On SQLite, where that lookup was ~20 µs of each
 * submission under load, the forms found are kept: triggers count every change to what intake reads
 * of a form (migration 0010), made by this process or any other, and everything kept is dropped
 * when the count moves. The count is read at most once per turn of the event loop, so a change
 * applies to every submission that arrives after it has been committed. On PostgreSQL each
 * submission reads its form; concurrent lookups of one form share a query.
 */
export class IntakeForms {
  private readonly lookups: SingleFlight<IntakeForm | null>;
  // bounded: a form that stops receiving submissions is dropped in time; a form never found is not kept
  private readonly kept = new LRUCache<string, IntakeForm>({ max: 10_000 });
  private keptAt: number | null = null;
  private epochThisTurn: Promise<number> | null = null;

  constructor(private readonly forms: FormService) {
    // NOTE: callers share the looked-up form: it is read, never changed.
    this.lookups = new SingleFlight((formId) => forms.getIntakeForm(formId));
  }

  async get(formId: string): Promise<IntakeForm | null> {
    if (!this.forms.countsIntakeChanges) return this.lookups.get(formId);
    const epoch = await this.epoch();
    if (epoch !== this.keptAt) {
      this.kept.clear();
      this.keptAt = epoch;
    }
    const kept = this.kept.get(formId);
    if (kept) return kept;
    // Looked up after the count was read, so never older than it: kept under that count, a form
    // changed meanwhile is dropped at the next turn's reading.
    const form = await this.lookups.get(formId);
    if (form && this.keptAt === epoch) this.kept.set(formId, form);
    return form;
  }

  private epoch(): Promise<number> {
    if (!this.epochThisTurn) {
      this.epochThisTurn = this.forms.intakeEpoch();
      setImmediate(() => (this.epochThisTurn = null));
    }
    return this.epochThisTurn;
  }
}
