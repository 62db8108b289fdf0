import { setLoopSliceMs } from '../../src/domain/loop-slice.js';
import { watchStatementRows } from './query-count.js';

/** What watchRowsPerTurn saw: the most rows the statements of one turn of the event loop read or changed. */
export interface RowsPerTurn {
  mostRows: number;
  turns: number;
}

/**
 * Counts the rows each turn of the event loop handles while a walk runs, with every walk's slice
 * at 0 (domain/loop-slice.ts: it gives the loop back at every check). A walk that gives the loop
 * back between batches shows one batch's rows at most; one that holds it shows all its rows in one
 * turn. A count, the same on any machine (installQueryCounter first).
 */
export function watchRowsPerTurn(): { stop(): RowsPerTurn } {
  const restoreSlice = setLoopSliceMs(0);
  const seen: RowsPerTurn = { mostRows: 0, turns: 0 };
  let rows = 0;
  const stopRows = watchStatementRows((n) => {
    rows += n;
  });
  let stopped = false;
  const turn = () => {
    seen.mostRows = Math.max(seen.mostRows, rows);
    rows = 0;
    seen.turns++;
    if (!stopped) setImmediate(turn);
  };
  setImmediate(turn);
  return {
    stop() {
      if (!stopped) {
        seen.mostRows = Math.max(seen.mostRows, rows);
        stopped = true;
        stopRows();
        restoreSlice();
      }
      return { ...seen };
    },
  };
}

/** What watchLoopBlocks saw: the most CPU time, and wall time, this thread spent between two turns of its event loop. */
export interface LoopBlocks {
  longestCpuMs: number;
  longestWallMs: number;
  turns: number;
}

/**
 * Watches how long this process holds its event loop between two turns, as a 1 ms timer sees it.
 * The CPU time this thread used between two ticks (process.threadCpuUsage) is the work done in one
 * turn, whatever else the machine runs: a process that waits for a core uses none meanwhile. Wall
 * time is given too, for the message. `stop` answers the longest of each, the stretch up to it included.
 */
export function watchLoopBlocks(): { stop(): LoopBlocks } {
  const cpuNow = () => {
    const used = process.threadCpuUsage();
    return (used.user + used.system) / 1000;
  };
  const seen: LoopBlocks = { longestCpuMs: 0, longestWallMs: 0, turns: 0 };
  let lastCpu = cpuNow();
  let lastWall = performance.now();
  const sample = () => {
    const cpu = cpuNow();
    const wall = performance.now();
    seen.longestCpuMs = Math.max(seen.longestCpuMs, cpu - lastCpu);
    seen.longestWallMs = Math.max(seen.longestWallMs, wall - lastWall);
    lastCpu = cpu;
    lastWall = wall;
  };
  const timer = setInterval(() => {
    sample();
    seen.turns++;
  }, 1);
  let stopped = false;
  return {
    stop() {
      // NOTE: the stretch since the last tick counts too: a walk that never let the timer run is one long turn
      if (!stopped) sample();
      stopped = true;
      clearInterval(timer);
      return { ...seen };
    },
  };
}
