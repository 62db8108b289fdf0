import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { knownVariables } from '../../src/config/unknown-variables.js';

// Every FORMGATE_* name the project's own code, scripts and deployment files read must be known,
// or setting it would earn a "not a variable Formgate reads" warning at start.
// (TypeScript sets misspelt names on purpose in the warning's own tests, so only its reads count there.)
const READ_IN_CODE = [/process\.env\.(FORMGATE_[A-Z0-9_]*[A-Z0-9])\b/g, /env\[['"](FORMGATE_[A-Z0-9_]*[A-Z0-9])['"]\]/g];
const READ_IN_SCRIPTS = [/\$\{?(FORMGATE_[A-Z0-9_]*[A-Z0-9])\b/g, /^\s*(?:#\s*)?(?:ENV\s+|-\s+)?(FORMGATE_[A-Z0-9_]*[A-Z0-9])[:=]/gm];

function readNames(): Map<string, string> {
  const files = execFileSync('git', ['ls-files', 'src', 'test', 'bench', 'scripts', 'deploy', '.ci', 'Dockerfile', '.env.example', 'package.json'], {
    encoding: 'utf8',
  })
    .split('\n')
    .filter((file) => file !== '' && !file.endsWith('.png'));
  const names = new Map<string, string>();
  for (const file of files) {
    if (!existsSync(file)) continue;
    const text = readFileSync(file, 'utf8');
    for (const pattern of /\.(ts|mjs|js)$/.test(file) ? READ_IN_CODE : READ_IN_SCRIPTS) for (const match of text.matchAll(pattern)) names.set(match[1]!, file);
  }
  return names;
}

describe('FORMGATE_* variables', () => {
  it('every name the project reads is known to the unknown-variable warning', () => {
    const known = new Set(knownVariables());
    const unknown = [...readNames()].filter(([name]) => !known.has(name)).map(([name, file]) => `${name} (${file})`);
    assert.deepEqual(unknown, []);
  });
});
