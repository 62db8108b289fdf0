import type { LoadFigures, LoadSpec } from '../load/spec.js';
import { startHelper } from './children.js';
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
