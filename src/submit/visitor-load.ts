import { performance } from 'node:perf_hooks';

/** How long one reading of the event loop's utilisation covers, at least. */
const WINDOW_MS = 100;
/** Busier than this, the process has no time to spare. */
const SATURATED_AT = 0.8;

/**
 * Visitors waiting on the submit surface, and whether the process is saturated while they wait.
 * The delivery worker asks `busy()` before it claims: deliveries can wait a few seconds, a visitor
 * watching a spinner cannot (docs/deliveries.md).
 */
export class VisitorLoad {
  private waiting = 0;

  /** `saturated` reads whether the process has been busy lately (the event loop, by default). */
  constructor(private readonly saturated: () => boolean = eventLoopSaturation()) {}

  /** A request reached the submit surface; `leave` must follow when its answer ends or it is cut off. */
  enter(): void {
    this.waiting++;
  }

  leave(): void {
    this.waiting--;
  }

  /** Requests on the submit surface not yet answered. */
  get visitors(): number {
    return this.waiting;
  }

  /** Visitors are waiting and the process has had no time to spare. */
  busy(): boolean {
    return this.waiting > 0 && this.saturated();
  }
}

/** Busy and idle time of the event loop since the process started, in milliseconds. */
export interface LoopTimes {
  idle: number;
  active: number;
}

/**
 * Whether the event loop was busy at least `threshold` of the time since the last reading; a
 * reading stands until `windowMs` have passed, so the answer is cheap to ask often. `readLoop` is
 * the event loop's own meter unless a test gives one whose time it controls.
 */
export function eventLoopSaturation(
  windowMs = WINDOW_MS,
  threshold = SATURATED_AT,
  readLoop: () => LoopTimes = () => performance.eventLoopUtilization(),
): () => boolean {
  let mark = readLoop();
  let saturated = false;
  return () => {
    const now = readLoop();
    const idle = now.idle - mark.idle;
    const active = now.active - mark.active;
    if (idle + active >= windowMs) {
      saturated = active / (idle + active) >= threshold;
      mark = now;
    }
    return saturated;
  };
}
