import path from 'node:path';
import type { LoadFigures, LoadSpec } from '../load/spec.js';
import { BENCH_DIR, runToEnd } from './children.js';

/** Runs the load process (bench/load/cannon.ts, autocannon) with `spec` and returns its figures. */
export async function runLoad(spec: LoadSpec): Promise<LoadFigures> {
  const out = await runToEnd(['--import', 'tsx', path.join(BENCH_DIR, 'load', 'cannon.ts'), JSON.stringify(spec)]);
  return JSON.parse(out.trim().split('\n').pop()!) as LoadFigures;
}
