// Copies the SVG icons next to the compiled nodes and credentials, where their `file:` references point.
import { copyFileSync, mkdirSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
for (const dir of ['icons']) {
  mkdirSync(join(root, 'dist', dir), { recursive: true });
  for (const name of readdirSync(join(root, dir)).filter((file) => file.endsWith('.svg'))) {
    copyFileSync(join(root, dir, name), join(root, 'dist', dir, name));
  }
}
