import type { LoadFigures, LoadSpec } from '../load/spec.js';
import { startHelper } from './children.js';
import type { BenchDatabase } from './databases.js';
import { runLoad } from './load.js';

/**
 * The same load against the bare `node:http` server (bench/servers/baseline.ts), measured in the
 * same run: what this machine and this load tool can do at all for that request.
 */
export async function measureBaseline(spec: Omit<LoadSpec, 'origin'>): Promise<LoadFigures> {
  const baseline = await startHelper<{ port: number }>('servers/baseline.ts');
  try {
    return await runLoad({ ...spec, origin: `http://127.0.0.1:${baseline.info.port}`, followCursorPages: undefined, uniqueBodies: false });
  } finally {
    await baseline.stop();
  }
}

/**
 * The same load against the storage floor (bench/servers/floor.ts) on `database`: a bare server that
 * only stores durably or reads a page. What any form backend that keeps its promises could reach here.
 */
export async function measureFloor(database: BenchDatabase, spec: Omit<LoadSpec, 'origin'>): Promise<LoadFigures> {
  const floor = await startHelper<{ port: number }>('servers/floor.ts', [JSON.stringify({ dialect: database.dialect, url: database.url })]);
  try {
    return await runLoad({ ...spec, origin: `http://127.0.0.1:${floor.info.port}` });
  } finally {
    await floor.stop();
  }
}
