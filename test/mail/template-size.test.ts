import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAX_TEMPLATE_CHARS, measureTemplate, templateSizeError } from '../../src/mail/template-size.js';

describe('template size (counted before compiling)', () => {
  it('counts placeholders, blocks and helper calls as Handlebars would, and not comments, escapes or closing tags', () => {
    const code =
      '<p>{{#if data.a}}x{{else}}y{{/if}} {{!-- {{#if x}} --}} {{! note }} \\{{x}} {{data.b.c}} ' +
      '{{#each (if a b) as |x|}}{{x}}{{/each}} {{^data.a}}none{{/data.a}} {{{data.raw}}}</p>';
    assert.deepEqual(measureTemplate(code), { statements: 7, depth: 2, words: 21 });
  });

  it('measures depth through blocks, else-if chains and helper calls inside each other', () => {
    assert.equal(measureTemplate('{{#if a}}1{{else if b}}2{{else if c}}3{{^}}4{{/if}}{{#if d}}{{/if}}').depth, 3);
    assert.equal(measureTemplate('{{x (y (z 1)) "(not a call"}}').depth, 2);
    assert.equal(measureTemplate(`${'{{#each data.list}}'.repeat(32)}{{this}}${'{{/each}}'.repeat(32)}`).depth, 32);
  });

  it('refuses by count, naming the first limit passed', () => {
    // 26,000 placeholders also hold 52,000 names: the placeholders are named
    assert.equal(templateSizeError('{{data.a}}'.repeat(26_000)), 'code: 26000 placeholders, blocks and helper calls, more than the 2000 a template may hold');
    assert.equal(templateSizeError('{{data.a}}'.repeat(2_000)), null);
    assert.equal(
      templateSizeError(`${'{{#if a}}'.repeat(33)}${'{{/if}}'.repeat(33)}`),
      'code: blocks and helper calls nested 33 deep, deeper than the 32 a template may nest',
    );
    assert.equal(
      templateSizeError(`{{#if ${'a '.repeat(10_000)}}}x{{/if}}`),
      'code: 10002 names and values inside tags, more than the 10000 a template may hold',
    );
    assert.equal(templateSizeError('x'.repeat(MAX_TEMPLATE_CHARS + 1)), `code: longer than ${MAX_TEMPLATE_CHARS} characters`);
  });

  it('reads any text of the largest size in one pass, whatever it holds', () => {
    // tags that never close, comments that never close, escapes: each read once (a quadratic scan would take minutes)
    for (const unit of ['{{', '{{!--', '\\{{', '{{a', '"{{', '{{ (', '{{#if a}}', '{{/if}}'])
      assert.ok(measureTemplate(unit.repeat(Math.floor(MAX_TEMPLATE_CHARS / unit.length))).statements >= 0);
  });
});
