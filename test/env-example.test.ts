// .env.example lists every variable with its default: uncommented as it is, it is a configuration
// Formgate accepts, and one that is the same as setting nothing.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { parse } from 'dotenv';
import { buildConfig } from '../src/config/config.js';
import { readEnv, serverVariables } from '../src/config/env.js';
import { unknownVariableWarnings } from '../src/config/unknown-variables.js';
import { PROJECT_ROOT } from './helpers/cli.js';

// read by the npm scripts or (FORMGATE_METRICS) added beside this work: documented for the operator too
const OPERATOR_VARIABLES_ELSEWHERE = ['FORMGATE_METRICS', 'FORMGATE_NODE_TOOLCHAIN', 'FORMGATE_NODE_CACHE'];

const text = fs.readFileSync(path.join(PROJECT_ROOT, '.env.example'), 'utf8');
/** Every commented-out setting, uncommented. */
const uncommented = parse(
  text
    .split('\n')
    .filter((line) => /^# FORMGATE_[A-Z0-9_]+=/.test(line))
    .map((line) => line.slice(2))
    .join('\n'),
);

describe('.env.example', () => {
  it('lists every variable once, each with a comment above it or its group', () => {
    const listed = text.split('\n').filter((line) => /^# FORMGATE_[A-Z0-9_]+=/.test(line));
    const names = listed.map((line) => line.slice(2).split('=')[0]!);
    assert.equal(new Set(names).size, names.length, 'no variable twice');
    for (const name of [...serverVariables(), ...OPERATOR_VARIABLES_ELSEWHERE]) assert.ok(names.includes(name), `${name} is in .env.example`);
    assert.deepEqual(unknownVariableWarnings(uncommented), [], 'nothing in it is a variable Formgate does not know');
    const lines = text.split('\n');
    for (const line of listed) {
      const above = lines[lines.indexOf(line) - 1]!;
      assert.ok(above.startsWith('#'), `${line} has a comment above it`);
    }
  });

  it('sets nothing when copied as it is: every setting is commented out', () => {
    assert.deepEqual(parse(text), {});
  });

  it('is a configuration Formgate accepts, and the same as the defaults, once every line is uncommented', () => {
    const fromExample = buildConfig(readEnv(uncommented, false));
    const defaults = buildConfig({});
    assert.deepEqual(fromExample, defaults);
  });
});
