import type { FastifyInstance } from 'fastify';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sendText } from './render.js';

// src/dashboard/assets under tsx; dist/assets beside the bundle (scripts/build.mjs copies it there).
const ASSETS_DIR = fileURLToPath(new URL('./assets/', import.meta.url));
const TYPES: Record<string, string> = {
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.svg': 'image/svg+xml',
};

/**
 * Scripts of packages, served under a name of ours from the package's own minified build in
 * node_modules (as the ALTCHA widget is: src/submit/altcha-routes.ts), never a copy kept here.
 */
const PACKAGE_SCRIPTS: Record<string, () => string> = {
  // the passkey ceremonies' browser side (assets/passkeys.js uses its `SimpleWebAuthnBrowser`); its entry is esm/index.js
  'webauthn.js': () => path.join(path.dirname(fileURLToPath(import.meta.resolve('@simplewebauthn/browser'))), '../dist/bundle/index.umd.min.js'),
};

interface Asset {
  body: Buffer;
  type: string;
  /** A hash of the content: in the address (`?v=`) and the ETag. */
  version: string;
}

const assets = new Map<string, Asset | null>();

/** The asset, read once; null for anything that is not a file of the folder with a known type. */
function loadAsset(file: string): Asset | null {
  let asset = assets.get(file);
  if (asset !== undefined) return asset;
  const type = TYPES[file.slice(file.lastIndexOf('.'))];
  asset = null;
  const source = Object.hasOwn(PACKAGE_SCRIPTS, file) ? PACKAGE_SCRIPTS[file]!() : `${ASSETS_DIR}${file}`;
  if (type && /^[a-z0-9-]+\.[a-z]+$/.test(file) && fs.existsSync(source)) {
    const body = fs.readFileSync(source);
    asset = { body, type, version: createHash('sha256').update(body).digest('hex').slice(0, 10) };
  }
  assets.set(file, asset);
  return asset;
}

/**
 * The address of an asset, with a hash of its content: browsers keep it for a year and fetch
 * the new one as soon as a release changes it.
 */
export function assetUrl(file: string): string {
  const asset = loadAsset(file);
  if (!asset) throw new Error(`no dashboard asset ${file}`);
  return `/assets/${file}?v=${asset.version}`;
}

/**
 * Serves the stylesheet, the scripts and the icon under /assets, from memory.
 * NOTE: not @fastify/static: for three small files it added about 270 KB to the bundle (glob, send,
 * mime) and a measurable part of `formgate serve`'s start; a flat folder read once needs none of it.
 */
export function installAssets(app: FastifyInstance): void {
  app.get<{ Params: { file: string } }>('/assets/:file', async (request, reply) => {
    const asset = loadAsset(request.params.file);
    if (!asset) return reply.code(404).type('text/plain; charset=utf-8').send('Not found');
    const etag = `"${asset.version}"`;
    reply.header('etag', etag).header('cache-control', 'public, max-age=31536000, immutable').type(asset.type);
    if (request.headers['if-none-match'] === etag) return reply.code(304).send();
    return sendText(reply, asset.body);
  });
}
