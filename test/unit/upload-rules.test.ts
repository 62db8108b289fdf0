import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ALLOWED_TYPE_MAX_LENGTH, allowedTypeProblem, DEFAULT_FILE_UPLOADS, safeFileName, typeAllowed, uploadCeilings } from '../../src/domain/uploads.js';

describe('typeAllowed', () => {
  const allowed = ['.PDF', 'image/*', 'text/plain', '.gz'];

  it('matches an extension with the name’s ending, in any case, a double one too', () => {
    assert.equal(typeAllowed(allowed, 'cv.PDF', 'application/octet-stream'), true);
    assert.equal(typeAllowed(allowed, 'archive.tar.gz', 'application/octet-stream'), true);
    assert.equal(typeAllowed(allowed, 'cv.pdf.exe', 'application/octet-stream'), false);
    assert.equal(typeAllowed(allowed, 'pdf', 'application/octet-stream'), false);
    assert.equal(typeAllowed(allowed, '.pdf', 'application/octet-stream'), false, 'a name that is only an extension has none');
    assert.equal(typeAllowed(['.tar.gz'], 'backup.TAR.GZ', 'application/gzip'), true);
    assert.equal(typeAllowed(['.tar.gz'], 'backup.gz', 'application/gzip'), false);
  });

  it('matches a content type exactly or by family, ignoring its parameters and case', () => {
    assert.equal(typeAllowed(allowed, 'photo', 'IMAGE/PNG'), true);
    assert.equal(typeAllowed(allowed, 'notes', 'text/plain; charset=utf-8'), true);
    assert.equal(typeAllowed(allowed, 'page', 'text/html'), false);
    assert.equal(typeAllowed(allowed, 'x', 'image'), false, 'no family without a slash');
    assert.equal(typeAllowed(allowed, 'x', ''), false);
    assert.equal(typeAllowed([], 'cv.pdf', 'application/pdf'), false);
  });

  it('lets the defaults take common documents and images, not scripts or executables', () => {
    for (const name of ['cv.pdf', 'letter.docx', 'sheet.ods', 'photo.JPG', 'scan.webp', 'notes.txt'])
      assert.equal(typeAllowed(DEFAULT_FILE_UPLOADS.allowedTypes, name, 'application/octet-stream'), true, name);
    for (const name of ['page.html', 'image.svg', 'run.exe', 'script.js', 'noextension'])
      assert.equal(typeAllowed(DEFAULT_FILE_UPLOADS.allowedTypes, name, 'application/octet-stream'), false, name);
  });
});

describe('allowedTypeProblem', () => {
  it('accepts extensions and content types, with a family wildcard', () => {
    for (const entry of ['.pdf', '.tar.gz', '.DOCX', 'application/pdf', 'image/*', 'application/vnd.ms-excel', 'text/x-c++'])
      assert.equal(allowedTypeProblem(entry), null, entry);
  });

  it('refuses anything else with a sentence an owner can act on', () => {
    for (const entry of ['pdf', '.', '*/*', '*', 'image/', '/png', 'image/png; charset=x', '.p df', '../x', 'a/b/c', ''])
      assert.match(allowedTypeProblem(entry) ?? '', /must be an extension such as "\.pdf" or a content type/, entry);
    assert.equal(allowedTypeProblem(`.${'a'.repeat(ALLOWED_TYPE_MAX_LENGTH)}`), `at most ${ALLOWED_TYPE_MAX_LENGTH} characters`);
  });
});

describe('safeFileName', () => {
  it('keeps only the last part of a path', () => {
    assert.equal(safeFileName('../../etc/passwd'), 'passwd');
    assert.equal(safeFileName('C:\\Users\\ann\\cv.pdf'), 'cv.pdf');
    assert.equal(safeFileName('/var/www/../cv.pdf'), 'cv.pdf');
  });

  it('replaces control and reserved characters and drops leading dots', () => {
    assert.equal(safeFileName('cv\u0000\r\n.pdf'), 'cv___.pdf');
    assert.equal(safeFileName('a:b*c?d"e<f>g|h\u007f.txt'), 'a_b_c_d_e_f_g_h_.txt');
    assert.equal(safeFileName('.htaccess'), 'htaccess');
    assert.equal(safeFileName('  report.pdf  '), 'report.pdf');
  });

  it('shortens a long name to 200 characters, keeping its extension', () => {
    const long = safeFileName(`${'a'.repeat(500)}.pdf`);
    assert.equal(long.length, 200);
    assert.ok(long.endsWith('a.pdf'));
    const noExtension = safeFileName('b'.repeat(300));
    assert.equal(noExtension, 'b'.repeat(200));
    const longExtension = safeFileName(`x.${'y'.repeat(300)}`);
    assert.equal(longExtension.length, 200, 'an "extension" too long to be one is cut with the rest');
  });

  it('removes bidirectional controls and invisible characters, so a name shows what it is (issue 38, item 17)', () => {
    // `a\u202Efdp.html` shows as `ahtml.pdf`
    assert.equal(safeFileName('a\u202Efdp.html'), 'afdp.html');
    for (const hidden of [
      '\u202A',
      '\u202B',
      '\u202C',
      '\u202D',
      '\u202E',
      '\u2066',
      '\u2067',
      '\u2068',
      '\u2069',
      '\u200E',
      '\u200F',
      '\u061C',
      '\u200B',
      '\u2060',
      '\uFEFF',
      '\u00AD',
      '\u0085',
      '\u009B',
    ])
      assert.equal(safeFileName(`in${hidden}voice.pdf`), 'invoice.pdf', `U+${hidden.codePointAt(0)!.toString(16).toUpperCase()}`);
    // joiners that scripts need stay; a lone surrogate becomes U+FFFD (it could not be encoded in a header)
    assert.equal(safeFileName('\u0645\u06CC\u200C\u062E\u0648\u0627\u0647\u0645.pdf'), '\u0645\u06CC\u200C\u062E\u0648\u0627\u0647\u0645.pdf');
    assert.equal(safeFileName('a\ud800b.pdf'), 'a\ufffdb.pdf');
    assert.equal(safeFileName('\u202E'), 'file');
  });

  it('is never empty', () => {
    for (const sent of ['', '   ', '..', '../', '...', '/', '\\']) assert.equal(safeFileName(sent), 'file', JSON.stringify(sent));
  });
});

describe('uploadCeilings', () => {
  it('gives FREE the defaults as ceilings and an upgraded plan more, with a larger allowance', () => {
    const free = uploadCeilings('FREE');
    assert.equal(free.maxFileSize, DEFAULT_FILE_UPLOADS.maxFileSize);
    assert.equal(free.maxTotalSize, DEFAULT_FILE_UPLOADS.maxTotalSize);
    const upgraded = uploadCeilings('BUNDLE_50000');
    assert.ok(upgraded.maxFileSize > free.maxFileSize && upgraded.storageBytes > free.storageBytes);
  });
});
