import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { attachmentDisposition } from '../../src/web/attachment.js';
import { flattenFields } from '../../src/services/export-fields.js';

const flat = (data: unknown) => Object.fromEntries(flattenFields(data));

describe('flattenFields: a submission as spreadsheet columns', () => {
  it('keeps plain fields in the order sent, numbers as numbers, booleans and null as text', () => {
    assert.deepEqual(flat({ b: 'x', a: 2, ok: true, no: false, gone: null }), { b: 'x', a: 2, ok: 'true', no: 'false', gone: '' });
    assert.deepEqual([...flattenFields({ z: '1', a: '2', m: '3' }).keys()], ['z', 'a', 'm']);
  });

  it('names nested objects by dotted path, bracketing keys that hold a dot or a bracket', () => {
    assert.deepEqual(flat({ address: { city: 'Oslo', geo: { lat: 59.9 } } }), { 'address.city': 'Oslo', 'address.geo.lat': 59.9 });
    assert.deepEqual(flat({ a: { 'b.c': '1', 'd[e': '2', 'f]g.h': '3', 5: '4' } }), { 'a.5': '4', 'a[b.c]': '1', 'a[d[e]': '2', 'a.f]g.h': '3' });
  });

  it('joins lists of plain values in one cell, and indexes lists that hold objects or lists', () => {
    assert.deepEqual(flat({ topics: ['sales', 'support'], n: [1, null, true] }), { topics: 'sales, support', n: '1, , true' });
    assert.deepEqual(flat({ items: [{ sku: 'A' }, 'loose', ['x', 'y']] }), { 'items[0].sku': 'A', 'items[1]': 'loose', 'items[2]': 'x, y' });
  });

  it('gives empty objects and lists an empty cell, so their column still shows', () => {
    assert.deepEqual(flat({ a: {}, b: [] }), { a: '', b: '' });
  });

  it('joins two values that land on one name', () => {
    assert.deepEqual(flat({ 'a.b': '1', a: { b: '2' } }), { 'a.b': '1, 2' });
  });

  it('treats a __proto__ field as any other', () => {
    assert.deepEqual(flat(JSON.parse('{"__proto__":{"x":"1"}}')), { '__proto__.x': '1' });
  });
});

describe('attachmentDisposition: a safe file name', () => {
  const day = new Date('2026-11-24T12:00:00Z');

  it('slugs an ASCII name', () => {
    assert.equal(attachmentDisposition('Contact us!', 'csv', day), 'attachment; filename="contact-us-submissions-2026-11-24.csv"');
  });

  it('adds filename* in UTF-8 for a name that is not ASCII, with an ASCII fallback', () => {
    assert.equal(
      attachmentDisposition('Zoë 北京', 'json', day),
      `attachment; filename="zoe-submissions-2026-11-24.json"; filename*=UTF-8''zo%C3%AB-%E5%8C%97%E4%BA%AC-submissions-2026-11-24.json`,
    );
    assert.match(attachmentDisposition('北京', 'csv', day), /^attachment; filename="export-submissions-2026-11-24\.csv"; filename\*=UTF-8''/);
  });

  it('never lets quotes, slashes or control characters through, and cuts long names', () => {
    assert.equal(attachmentDisposition('"../../etc/passwd"\r\n', 'csv', day), 'attachment; filename="etc-passwd-submissions-2026-11-24.csv"');
    assert.equal(attachmentDisposition('x'.repeat(200), 'csv', day), `attachment; filename="${'x'.repeat(60)}-submissions-2026-11-24.csv"`);
    assert.equal(attachmentDisposition('', 'csv', day), 'attachment; filename="export-submissions-2026-11-24.csv"');
  });
});
