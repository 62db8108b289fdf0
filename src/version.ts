// NOTE: imported as JSON, so esbuild bundles the version into dist/ (nothing reads package.json at run time).
import manifest from '../package.json' with { type: 'json' };

/** Formgate's version, as package.json says: `--version`, the ready line, `/healthz` and the OpenAPI document all show this one. */
export const VERSION: string = manifest.version;
