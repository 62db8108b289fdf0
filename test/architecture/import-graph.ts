import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/** One import of one file: paths relative to the repository, with forward slashes. */
export interface ImportEdge {
  from: string;
  to: string;
  typeOnly: boolean;
}

function sourceFiles(dir: string): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.posix.join(dir, entry.name);
    if (entry.isDirectory()) files.push(...sourceFiles(full));
    else if (/\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts')) files.push(full);
  }
  return files;
}

// The specifiers a file names only in `import type` / `export type` declarations (or with every
// imported name marked `type`): the rest (values, dynamic `import()`, import types) count as values.
function typeOnlySpecifiers(file: string, text: string): Set<string> {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false);
  const typeOnly = new Set<string>();
  const value = new Set<string>();
  for (const statement of source.statements) {
    let specifier: ts.Expression | undefined;
    let isType = false;
    if (ts.isImportDeclaration(statement)) {
      specifier = statement.moduleSpecifier;
      const clause = statement.importClause;
      const named = clause?.namedBindings;
      isType =
        clause !== undefined &&
        (clause.isTypeOnly ||
          (clause.name === undefined &&
            named !== undefined &&
            ts.isNamedImports(named) &&
            named.elements.length > 0 &&
            named.elements.every((e) => e.isTypeOnly)));
    } else if (ts.isExportDeclaration(statement)) {
      specifier = statement.moduleSpecifier;
      isType = statement.isTypeOnly;
    }
    if (specifier && ts.isStringLiteral(specifier)) (isType ? typeOnly : value).add(specifier.text);
  }
  for (const specifier of value) typeOnly.delete(specifier);
  return typeOnly;
}

function resolve(from: string, specifier: string): string | null {
  const base = path.posix.normalize(path.posix.join(path.posix.dirname(from), specifier)).replace(/\.js$/, '');
  return [`${base}.ts`, `${base}.tsx`, `${base}/index.ts`, base].find((candidate) => existsSync(candidate)) ?? null;
}

/** Every relative import of every file under `root` (static, re-export, dynamic, type-only). */
export function importGraph(root: string): { edges: ImportEdge[]; unresolved: string[] } {
  const edges: ImportEdge[] = [];
  const unresolved: string[] = [];
  for (const file of sourceFiles(root)) {
    const text = readFileSync(file, 'utf8');
    const typeOnly = typeOnlySpecifiers(file, text);
    for (const { fileName } of ts.preProcessFile(text, true, true).importedFiles) {
      if (!fileName.startsWith('.')) continue;
      const to = resolve(file, fileName);
      if (to === null) unresolved.push(`${file} → ${fileName}`);
      else edges.push({ from: file, to, typeOnly: typeOnly.has(fileName) });
    }
  }
  return { edges, unresolved };
}
