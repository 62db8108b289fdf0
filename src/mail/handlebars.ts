import { createRequire } from 'node:module';
import type Handlebars from 'handlebars';

let library: typeof Handlebars | null = null;

/**
 * A Handlebars environment of its own: helpers or partials registered elsewhere cannot reach it.
 * The library (about 8 MB) is loaded on first use, not when the server starts: an instance that
 * renders no template and shows no page never pays for it.
 */
export function isolatedHandlebars(): typeof Handlebars {
  library ??= createRequire(import.meta.url)('handlebars') as typeof Handlebars;
  return library.create();
}

/** Makes a value on first use and keeps it. */
export function onFirstUse<T>(make: () => T): () => T {
  let value: T | undefined;
  let made = false;
  return () => {
    if (!made) {
      value = make();
      made = true;
    }
    return value as T;
  };
}
