import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type DeliveredFile, fileIdOfValue, fileIdsNamedIn, readableSize, withFileLinks, withoutFileUrls } from '../../src/domain/file-values.js';

const base = 'https://forms.example.com/public/v1';
const cv: DeliveredFile = { id: 'cvid2345', field: 'cv', name: 'cv.pdf', type: 'application/pdf', size: 10 };
const object = (id: string) => ({ name: `${id}.pdf`, type: 'application/pdf', size: 10, url: `${base}/files/${id}` });

describe('file objects of a submission’s data', () => {
  it('reads the file id from an object’s url, and nothing from anything else', () => {
    assert.equal(fileIdOfValue(object('abc')), 'abc');
    assert.equal(fileIdOfValue({ url: `${base}/files/abc?expires=1&signature=x` }), 'abc');
    assert.equal(fileIdOfValue({ url: `${base}/files/abc/more` }), null);
    assert.equal(fileIdOfValue({ url: 42 }), null);
    assert.equal(fileIdOfValue([object('abc')]), null);
    assert.equal(fileIdOfValue(`${base}/files/abc`), null);
    assert.deepEqual(fileIdsNamedIn({ a: object('one'), b: [object('two'), 'text'], c: { d: object('three') }, e: null }), ['one', 'two', 'three']);
  });

  it('replaces the url of the submission’s own files only, keeping every key in its order', () => {
    const data = JSON.parse(
      `{"name":"Ada","cv":${JSON.stringify(object(cv.id))},"other":${JSON.stringify(object('notthisone'))},"__proto__":{"x":1},"list":[${JSON.stringify(object(cv.id))}]}`,
    );
    const linked = withFileLinks(data, [cv], (file) => `signed:${file.id}`);
    assert.equal(
      JSON.stringify(linked),
      JSON.stringify(data).replace(new RegExp(`"${base.replace(/[/.]/g, '\\$&')}/files/${cv.id}"`, 'g'), `"signed:${cv.id}"`),
    );
    assert.equal((linked.other as { url: string }).url, `${base}/files/notthisone`);
    assert.equal(Object.getPrototypeOf(linked), Object.prototype, 'a field named __proto__ stays a field');
    assert.equal(
      withFileLinks(data, [], () => 'x'),
      data,
      'no files: the very same object',
    );
    assert.equal((data.cv as { url: string }).url, `${base}/files/${cv.id}`, 'the data is not changed');
  });

  it('takes the urls out of file objects for an answer to the visitor', () => {
    assert.deepEqual(withoutFileUrls({ name: 'Ada', cv: object('abc') }), { name: 'Ada', cv: { name: 'abc.pdf', type: 'application/pdf', size: 10 } });
    const plain = { name: 'Ada', site: { url: 'https://example.com' } };
    assert.equal(withoutFileUrls(plain), plain);
  });

  it('writes sizes as people read them', () => {
    assert.deepEqual([0, 1, 1023, 1024, 48213, 10 * 1024 * 1024, 3 * 1024 ** 3].map(readableSize), [
      '0 bytes',
      '1 byte',
      '1023 bytes',
      '1.0 KB',
      '47.1 KB',
      '10.0 MB',
      '3.0 GB',
    ]);
  });
});
