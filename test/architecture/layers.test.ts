import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { importGraph } from './import-graph.js';
import { forbiddenReason, LAYERS, layerIndex, partOf } from './layer-rules.js';

// NOTE: paths are relative to the repository: node --test runs from its root (scripts/test.sh).
const graph = importGraph('src');

describe('the layers of src/ (docs/architecture.md, "Layers")', () => {
  it('finds the imports it checks', () => {
    assert.ok(graph.edges.length > 500, `only ${graph.edges.length} imports found under src/: is the test running from the repository's root?`);
    assert.ok(
      graph.edges.some((e) => e.from === 'src/app.ts' && e.to === 'src/context.ts'),
      'app.ts → context.ts is missing from the graph',
    );
  });

  it('resolves every relative import inside src/', () => {
    assert.deepEqual(graph.unresolved, [], `imports that name no file:\n${graph.unresolved.join('\n')}`);
  });

  it('places every part of src/ in a layer', () => {
    const parts = new Set(graph.edges.flatMap((e) => [partOf(e.from), partOf(e.to)]).filter((p) => p !== null));
    const unplaced = [...parts].filter((part) => layerIndex(part) === -1);
    assert.deepEqual(unplaced, [], `src/ parts with no layer: add them to LAYERS in test/architecture/layer-rules.ts (and to docs/architecture.md)`);
  });

  it('has no import that crosses a forbidden line', () => {
    const crossings = graph.edges.flatMap(({ from, to, typeOnly }) => {
      const fromPart = partOf(from);
      const toPart = partOf(to);
      if (fromPart === null || toPart === null) return [];
      const reason = forbiddenReason(fromPart, toPart, typeOnly);
      return reason === null ? [] : [`${from} → ${to} (${reason})`];
    });
    assert.equal(crossings.length, 0, `${crossings.length} imports cross a forbidden line (docs/architecture.md, "Layers"):\n${crossings.join('\n')}`);
  });
});

describe('forbiddenReason', () => {
  it('refuses a made-up crossing of each kind, and lets the allowed ones through', () => {
    assert.match(forbiddenReason('dashboard', 'db', false) ?? '', /^dashboard must not import db: /);
    assert.match(forbiddenReason('http', 'dashboard', true) ?? '', /^http must not import dashboard: surfaces are siblings/);
    assert.match(forbiddenReason('db', 'services', true) ?? '', /^db must not import services: the rules layer sits above the storage layer/);
    assert.match(forbiddenReason('mail', 'jobs', false) ?? '', /: mail builds messages/);
    assert.match(forbiddenReason('services', 'intake', false) ?? '', /: the pipeline calls services/);
    assert.match(forbiddenReason('domain', 'config', true) ?? '', /domain\/ imports only domain\/ and errors.ts/);
    assert.match(forbiddenReason('services', 'cli', false) ?? '', /only composition wires the program/);
    assert.match(forbiddenReason('http', 'context.ts', false) ?? '', /only composition wires the program/);
    assert.match(forbiddenReason('services', 'context.ts', true) ?? '', /only composition wires the program/);
    assert.equal(forbiddenReason('http', 'context.ts', true), null);
    assert.equal(forbiddenReason('dashboard', 'services', false), null);
    assert.equal(forbiddenReason('services', 'db', false), null);
    assert.equal(forbiddenReason('domain', 'errors.ts', false), null);
    assert.equal(forbiddenReason('cli', 'context.ts', false), null);
    assert.equal(forbiddenReason('db', 'db', false), null);
  });

  it('names every layer once', () => {
    const parts = LAYERS.flatMap((layer) => layer.parts);
    assert.equal(new Set(parts).size, parts.length, 'a part sits in two layers');
  });
});
