import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { FORMULA_START, INVISIBLE as INVISIBLE_CLASS, neutraliseFormula } from '../../src/services/csv-formulas.js';
import { fuzzSeed } from '../helpers/fuzz.js';

/** What a spreadsheet may skip before the first character it reads, written out here (not taken from the code under test). */
const INVISIBLE = [
  ' ',
  '\t',
  '\r',
  '\n',
  '\v',
  '\f',
  '\u00a0', // no-break space
  '\u1680',
  ...Array.from({ length: 11 }, (_, i) => String.fromCharCode(0x2000 + i)), // en quad … hair space
  '\u2028',
  '\u2029',
  '\u202f',
  '\u205f',
  '\u3000', // ideographic space
  '\ufeff', // byte order mark
  '\u200b', // zero-width space
  '\u200c', // zero-width non-joiner
  '\u200d', // zero-width joiner
  '\u2060', // word joiner
  '\u200e', // left-to-right mark
  '\u202e', // right-to-left override
  '\u00ad', // soft hyphen
  '\u0000',
  '\u001f',
  '\u0085', // next line
];
const TRIGGERS = ['=', '+', '-', '@', '\uff1d', '\uff0b', '\uff0d', '\uff20'];

describe('neutraliseFormula: CSV cells a spreadsheet would run', () => {
  it('quotes the cases of the issue: =, +, - and @ behind a space, no-break space, line feed, BOM or zero-width space', () => {
    for (const prefix of [' ', '\u00a0', '\n', '\ufeff', '\u200b', '\r\n', ' \t ', '\u200b\ufeff\u00a0']) {
      for (const trigger of ['=', '+', '-', '@']) {
        const cell = `${prefix}${trigger}HYPERLINK("http://evil")`;
        assert.equal(neutraliseFormula(cell), `'${cell}`, JSON.stringify(cell));
      }
    }
  });

  it('quotes what OWASP lists at the start, and their full-width forms', () => {
    for (const cell of ['=1+1', '+44 20 7946 0000', '-5', '@SUM(A1)', '\tx', '\rx', '\uff1d1', '\uff0b1', '\uff0d1', '\uff20x']) {
      assert.equal(neutraliseFormula(cell), `'${cell}`, JSON.stringify(cell));
    }
  });

  it('leaves text, empty and blank cells, numbers and formula characters further in alone', () => {
    for (const cell of ['', ' ', '\n', '\u200b', 'Ann', 'a=b', ' a-b', '\u00a0x @y', "'=already", '5-3', '"=x"']) {
      assert.equal(neutraliseFormula(cell), cell, JSON.stringify(cell));
    }
    assert.equal(neutraliseFormula(-5), -5);
    assert.equal(neutraliseFormula(0), 0);
  });

  it('quotes any run of invisible characters before any formula character, and changes nothing else of the cell', () => {
    const seed = fuzzSeed('csv formulas');
    const cell = fc
      .tuple(fc.array(fc.constantFrom(...INVISIBLE), { maxLength: 8 }), fc.constantFrom(...TRIGGERS), fc.string({ maxLength: 20, unit: 'binary' }))
      .map(([prefix, trigger, rest]) => prefix.join('') + trigger + rest);
    fc.assert(
      fc.property(cell, (value) => {
        assert.equal(neutraliseFormula(value), `'${value}`);
      }),
      { seed, numRuns: 2000 },
    );
  });

  it('never quotes a cell whose first visible character is a letter, a digit or a quote', () => {
    const seed = fuzzSeed('csv formulas: no false alarms');
    const cell = fc
      .tuple(
        fc.array(fc.constantFrom(...INVISIBLE.filter((c) => c !== '\t' && c !== '\r')), { maxLength: 1 }),
        fc.constantFrom('a', 'Z', 'é', '北', '7', '0', "'", '"', '(', '#'),
        fc.string({ maxLength: 20, unit: 'binary' }),
      )
      .map(([prefix, first, rest]) => prefix.join('') + first + rest);
    fc.assert(
      fc.property(cell, (value) => {
        assert.equal(neutraliseFormula(value), value);
      }),
      { seed, numRuns: 2000 },
    );
  });

  it('is linear on a long invisible run: the skipped class and the formula class share no character', () => {
    // the anchored pattern can only backtrack into the invisible run if a character could end it as
    // well as belong to it: checked over every code point, not timed
    const invisible = new RegExp(`^[${INVISIBLE_CLASS}]$`, 'u');
    const start = new RegExp(`^[${FORMULA_START}]$`, 'u');
    const both: string[] = [];
    for (let code = 0; code <= 0x10ffff; code++) {
      if (code >= 0xd800 && code <= 0xdfff) continue;
      const char = String.fromCodePoint(code);
      if (start.test(char) && invisible.test(char)) both.push(code.toString(16));
    }
    assert.deepEqual(both, []);
    const cell = `${' \u200b'.repeat(500_000)}x`;
    assert.equal(neutraliseFormula(cell), cell);
  });
});
