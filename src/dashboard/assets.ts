import staticFiles from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';

// src/dashboard/assets under tsx; dist/assets beside the bundle (scripts/build.mjs copies it there).
const ASSETS_DIR = fileURLToPath(new URL('./assets/', import.meta.url));
const versions = new Map<string, string>();

/**
 * The address of an asset, with a hash of its content: browsers keep it for a year and fetch
 * the new one as soon as a release changes it.
 */
export function assetUrl(file: string): string {
  let version = versions.get(file);
  if (version === undefined) {
    version = createHash('sha256')
      .update(fs.readFileSync(`${ASSETS_DIR}${file}`))
      .digest('hex')
      .slice(0, 10);
    versions.set(file, version);
  }
  return `/assets/${file}?v=${version}`;
}

/** Serves the stylesheet, scripts and icon under /assets. */
export async function installAssets(app: FastifyInstance): Promise<void> {
  await app.register(staticFiles, {
    root: ASSETS_DIR,
    prefix: '/assets/',
    index: false,
    list: false,
    immutable: true,
    maxAge: '365d',
  });
}
