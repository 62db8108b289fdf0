// Builds dist/main.js, the `formgate` program: src/ bundled with esbuild into dist/program.js,
// loaded by dist/main.js once it has checked the Node.js version (src/main.ts says why).
// NOTE: one file for the program because loading the ~700 modules of src/ and its dependencies one by one was
// half of `formgate serve`'s start (~750 against ~350 ms here). Tests run src/ itself (through tsx,
// which transpiles with the same esbuild); test/bundle.test.ts runs this build.
// `node scripts/build.mjs <file>` writes the bundle there instead (the folder is emptied first).
import { build } from 'esbuild';
import fs from 'node:fs';
import path from 'node:path';

// npm only warns about `engines`. The npm scripts run this build on a supported Node (scripts/node-env.sh
// switches to a fetched one, or stops with these words under FORMGATE_NODE_TOOLCHAIN=local); run by
// hand on an unsupported one, it stops here with what to do, instead of a native-module crash later.
// The words are src/cli/node-version.ts's, which dist/main.js prints (this script runs before
// TypeScript can; test/node-version.test.ts and test/install/node-toolchain.test.ts hold the copies together).
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 12)) {
  console.error(
    `Formgate needs Node.js 22.12 or later (a maintained line: 22, 24 or 26); this is ${process.version}.\n` +
      'scripts/install-node.sh 24 fetches the newest 24.x from the npm registry: export PATH="$(bash scripts/install-node.sh 24):$PATH"',
  );
  process.exit(1);
}

const outfile = process.argv[2] ?? 'dist/main.js';
const folder = path.dirname(outfile);
fs.rmSync(folder, { recursive: true, force: true });
const common = { bundle: true, platform: 'node', format: 'esm', target: 'node22', sourcemap: true, logLevel: 'warning' };
// main.js: the version check alone, then the program from the file beside it (never bundled in,
// or its imports would load before the check runs).
await build({
  ...common,
  entryPoints: ['src/main.ts'],
  outfile,
  plugins: [
    {
      name: 'program-beside-main',
      setup: (b) => b.onResolve({ filter: /^\.\/cli\/program\.js$/ }, () => ({ path: './program.js', external: true })),
    },
  ],
});
// The program, and the template worker that runs on threads of its own (src/mail/template-workers.ts), beside main.js.
for (const [entry, out] of [
  ['src/cli/program.ts', path.join(folder, 'program.js')],
  ['src/mail/template-worker.ts', path.join(folder, 'template-worker.js')],
])
  await build({
    ...common,
    entryPoints: [entry],
    outfile: out,
    // Native or optional at run time: loaded from node_modules when used (pg and ioredis only with
    // a PostgreSQL or Redis URL, see createRequire in src/).
    // @simplewebauthn/server and qrcode are imported at their first use (services/passkeys.ts, two-factor.ts): outside the bundle, they cost nothing until then
    external: ['better-sqlite3', 'pg', 'pg-native', 'ioredis', 'handlebars', '@simplewebauthn/server', 'qrcode'],
    // The CommonJS dependencies bundled in an ES module still call require() for Node's own modules.
    banner: { js: "import { createRequire as createRequireForBundle } from 'node:module';\nconst require = createRequireForBundle(import.meta.url);" },
  });
// V8 keeps a script's whole source in memory, in one byte a character only while every character
// fits in one: a single '…' in a comment doubled program.js's 8 MB to 15 MB of heap and resident
// memory (issue 44). esbuild writes strings, templates and names as ASCII already but leaves comments
// and regular expression literals as written; there \uXXXX means the same character (a pair of
// them, in a /u expression, the same astral one), so each character past ASCII is written so.
for (const file of [path.join(folder, 'program.js'), path.join(folder, 'template-worker.js')]) {
  const source = fs.readFileSync(file, 'utf8');
  // NOTE: after a backslash the escape would mean something else (`\’` in a regex is ’, `\\u2019` is not): none is there; say so if one comes
  if (/\\[\u0080-\uffff]/.test(source)) throw new Error(`${file}: a character past ASCII right after a backslash; write it as \\uXXXX in the source`);
  const ascii = source.replace(/[\u0080-\uffff]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
  if (ascii !== source) fs.writeFileSync(file, ascii);
}
// The dashboard's stylesheet and scripts, served from the folder beside main.js (src/dashboard/assets.ts).
fs.cpSync('src/dashboard/assets', path.join(folder, 'assets'), { recursive: true });
