// Prints, of the test files given, those that can tell SQLite from PostgreSQL: the ones whose
// imports reach test/helpers/database.ts, the only reader of FORMGATE_TEST_DB. The others (pure
// functions, templates, mail, configuration) give the same answer on both, so scripts/test.sh runs
// them once, on SQLite. Found by esbuild from the imports themselves (no list to keep up to date);
// should esbuild fail to read a file, every file is printed: a second run is never skipped by doubt.
import { build } from 'esbuild';

const DATABASE_HELPER = 'test/helpers/database.ts';
const files = process.argv.slice(2);

try {
  const { metafile } = await build({
    entryPoints: files,
    bundle: true,
    platform: 'node',
    format: 'esm',
    // shared chunks: without them each file's bundle would copy the whole program (20 s, not one)
    splitting: true,
    packages: 'external',
    outdir: 'unused',
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  const { outputs } = metafile;
  // an entry reaches the helper when the output holding it is among those it imports, at any depth
  const reaches = (entry) => {
    const seen = new Set([entry]);
    for (const name of seen) {
      if (DATABASE_HELPER in outputs[name].inputs) return true;
      for (const imported of outputs[name].imports) if (imported.path in outputs) seen.add(imported.path);
    }
    return false;
  };
  const reaching = new Set(
    Object.keys(outputs)
      .filter((name) => outputs[name].entryPoint && reaches(name))
      .map((name) => outputs[name].entryPoint),
  );
  for (const file of files) if (reaching.has(file)) console.log(file);
} catch (error) {
  console.error(`scripts/dialect-tests.mjs: could not read the tests' imports, so every file runs on PostgreSQL too (${error.message.split('\n')[0]})`);
  for (const file of files) console.log(file);
}
