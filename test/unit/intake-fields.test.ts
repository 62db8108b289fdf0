import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ProblemError } from '../../src/errors.js';
import { submitterAddress } from '../../src/domain/submitter-address.js';
import { fieldsFromJson, fieldsFromPairs, isBlankValue, isEmpty, type ParsedSubmission } from '../../src/intake/fields.js';

function fromQuery(query: string): ParsedSubmission {
  return fieldsFromPairs(new URLSearchParams(query));
}

function pairsOf(count: number, name = (i: number) => `f${i}`): [string, string][] {
  return Array.from({ length: count }, (_, i) => [name(i), 'v']);
}

// NOTE: every assert.ok has a message: without one, a failure makes node parse the transpiled
// one-line source to quote the expression, which can take minutes.
function assertValidationError(fn: () => unknown, message: RegExp): void {
  assert.throws(fn, (error: unknown) => {
    assert.ok(error instanceof ProblemError, `not a ProblemError: ${String(error)}`);
    assert.equal(error.code, 'validation_error');
    assert.equal(error.status, 400);
    const errors = error.extra.errors;
    assert.ok(Array.isArray(errors) && errors.length === 1, 'one entry in errors');
    assert.match(String(errors[0]), message);
    return true;
  });
}

function nested(depth: number, leaf: unknown): unknown {
  let value = leaf;
  for (let i = depth; i > 0; i--) value = { [`k${i}`]: value };
  return value;
}

function assertPrototypesClean(): void {
  const probe = {} as Record<string, unknown>;
  for (const key of ['x', 'y', 'z', '0']) assert.equal(probe[key], undefined);
  assert.equal(Object.keys(Object.prototype).length, 0);
  assert.equal((Array.prototype as unknown as Record<string, unknown>).x, undefined);
}

describe('fieldsFromPairs', () => {
  it('keeps flat fields in the order sent, values exactly as sent', () => {
    const parsed = fieldsFromPairs([
      ['name', '  Ada  '],
      ['note', ''],
      ['msg', 'line1\r\nline2'],
      ['age', '36'],
    ]);
    assert.deepEqual(parsed.data, { name: '  Ada  ', note: '', msg: 'line1\r\nline2', age: '36' });
    assert.deepEqual(Object.keys(parsed.data), ['name', 'note', 'msg', 'age']);
    assert.deepEqual(parsed.controls, {});
    assert.deepEqual(parsed.captcha, {});
  });

  it('drops a pair without a name', () => {
    const parsed = fieldsFromPairs([
      ['', 'lost'],
      ['a', '1'],
      ['', 'also lost'],
    ]);
    assert.deepEqual(parsed.data, { a: '1' });
  });

  it('accepts any iterable of pairs, such as a generator', () => {
    function* pairs(): Generator<[string, string]> {
      yield ['a', '1'];
      yield ['b.c', '2'];
    }
    assert.deepEqual(fieldsFromPairs(pairs()).data, { a: '1', b: { c: '2' } });
  });

  it('moves every underscore field to controls under its flat name', () => {
    const parsed = fromQuery(
      '_redirect=https%3A%2F%2Fx.test%2Fok&_error=https%3A%2F%2Fx.test%2Fko&_append=true&_email.subject=Hi&_email.from=Site' +
        '&_email.replyto=r%40x.test&_replyto=s%40x.test&_feedback.success.title=T&_feedback.dark=1&_honeypot=&_gotcha=&_other=x&name=Ada',
    );
    assert.deepEqual(parsed.data, { name: 'Ada' });
    assert.deepEqual(parsed.controls, {
      _redirect: 'https://x.test/ok',
      _error: 'https://x.test/ko',
      _append: 'true',
      '_email.subject': 'Hi',
      '_email.from': 'Site',
      '_email.replyto': 'r@x.test',
      _replyto: 's@x.test',
      '_feedback.success.title': 'T',
      '_feedback.dark': '1',
      _honeypot: '',
      _gotcha: '',
      _other: 'x',
    });
  });

  it('keeps the first value of a repeated control', () => {
    const parsed = fromQuery('_redirect=first&_redirect=second&_honeypot=&_honeypot=bot');
    assert.equal(parsed.controls._redirect, 'first');
    assert.equal(parsed.controls._honeypot, '');
  });

  it('moves captcha answers to captcha only, the first one winning', () => {
    const parsed = fromQuery('_botpoison=bp&g-recaptcha-response=rc&h-captcha-response=hc&cf-turnstile-response=ts&cf-turnstile-response=later&name=Ada');
    assert.deepEqual(parsed.captcha, { botpoison: 'bp', recaptcha: 'rc', hcaptcha: 'hc', turnstile: 'ts' });
    assert.deepEqual(parsed.data, { name: 'Ada' });
    assert.deepEqual(parsed.controls, {});
  });

  it('builds objects from dotted names and bracketed keys', () => {
    assert.deepEqual(fromQuery('car.color=red&car.make=VW').data, { car: { color: 'red', make: 'VW' } });
    assert.deepEqual(fromQuery('a[key]=v&a[other]=w').data, { a: { key: 'v', other: 'w' } });
    assert.deepEqual(fromQuery('a.b.c=1&a[b][d]=2').data, { a: { b: { c: '1', d: '2' } } });
  });

  it('builds arrays from indexes, compacting them in index order', () => {
    assert.deepEqual(fromQuery('a[0]=x&a[1]=y').data, { a: ['x', 'y'] });
    assert.deepEqual(fromQuery('a[1]=y&a[0]=x').data, { a: ['x', 'y'] });
    assert.deepEqual(fromQuery('a[5]=x&a[2]=y').data, { a: ['y', 'x'] });
    assert.deepEqual(fromQuery('a[10]=ten&a[9]=nine').data, { a: ['nine', 'ten'] });
  });

  it('appends with empty brackets', () => {
    assert.deepEqual(fromQuery('a[]=x&a[]=y').data, { a: ['x', 'y'] });
    assert.deepEqual(fromQuery('a[3]=x&a[]=y').data, { a: ['x', 'y'] });
    assert.deepEqual(fromQuery('a[][name]=n&a[][name]=m').data, { a: [{ name: 'n' }, { name: 'm' }] });
  });

  it('combines arrays and objects', () => {
    const parsed = fromQuery('items[0].name=n&items[0].qty=2&items[1].name=m&order.lines[0][sku]=s1&order.lines[1][sku]=s2');
    assert.deepEqual(parsed.data, {
      items: [{ name: 'n', qty: '2' }, { name: 'm' }],
      order: { lines: [{ sku: 's1' }, { sku: 's2' }] },
    });
  });

  it('keeps every value of a repeated name as an array, and a single one as a string', () => {
    const parsed = fromQuery('topic=a&single=s&topic=b&topic=c');
    assert.deepEqual(parsed.data, { topic: ['a', 'b', 'c'], single: 's' });
    assert.deepEqual(fromQuery('topic=a&topic=b&topic[]=c').data, { topic: ['a', 'b', 'c'] });
    assert.deepEqual(fromQuery('car.color=red&car.color=blue').data, { car: { color: ['red', 'blue'] } });
  });

  it('stores a pair that runs into a string under its literal name', () => {
    assert.deepEqual(fromQuery('a=1&a.b=2').data, { a: '1', 'a.b': '2' });
    assert.deepEqual(fromQuery('a=1&a[0]=2&a[]=3').data, { a: '1', 'a[0]': '2', 'a[]': '3' });
    assert.deepEqual(fromQuery('a.b=1&a.b.c=2&a.b.c=3').data, { a: { b: '1' }, 'a.b.c': ['2', '3'] });
  });

  it('stores a pair that treats an object as an array, or an array as an object, under its literal name', () => {
    assert.deepEqual(fromQuery('a.b=1&a[0]=2').data, { a: { b: '1' }, 'a[0]': '2' });
    assert.deepEqual(fromQuery('a[0]=1&a.b=2&a[key]=3').data, { a: ['1'], 'a.b': '2', 'a[key]': '3' });
    assert.deepEqual(fromQuery('x.items[0]=1&x.items.name=2').data, { x: { items: ['1'] }, 'x.items.name': '2' });
  });

  it('joins a value that lands on an object or array rather than losing either', () => {
    assert.deepEqual(fromQuery('a.b=1&a=2').data, { a: [{ b: '1' }, '2'] });
    assert.deepEqual(fromQuery('a[0]=x&a=y').data, { a: ['x', 'y'] });
  });

  it('stores malformed names literally', () => {
    const names = ['a.', '.a', '[0]', 'a[b', 'a..b', 'a[0]x', 'a]b.', 'x[]y'];
    const parsed = fieldsFromPairs(names.map((name) => [name, name]));
    assert.deepEqual(parsed.data, Object.fromEntries(names.map((name) => [name, name])));
  });

  it('nests up to 8 segments and stores a deeper name literally', () => {
    assert.deepEqual(fromQuery('a.b.c.d.e.f.g.h=8').data, { a: { b: { c: { d: { e: { f: { g: { h: '8' } } } } } } } });
    assert.deepEqual(fromQuery('a[0][1][2][3][4][5][6]=8').data, { a: [[[[[[['8']]]]]]] });
    assert.deepEqual(fromQuery('a.b.c.d.e.f.g.h.i=9').data, { 'a.b.c.d.e.f.g.h.i': '9' });
    assert.deepEqual(fromQuery('a[0][1][2][3][4][5][6][7]=9').data, { 'a[0][1][2][3][4][5][6][7]': '9' });
  });

  it('accepts array indexes up to 999 and stores a larger one literally', () => {
    assert.deepEqual(fromQuery('a[999]=x').data, { a: ['x'] });
    assert.deepEqual(fromQuery('a[1000]=x').data, { 'a[1000]': 'x' });
    assert.deepEqual(fromQuery(`a[${'9'.repeat(250)}]=x`).data, { [`a[${'9'.repeat(250)}]`]: 'x' });
  });

  it('accepts 1000 fields and refuses 1001, counting controls and captcha answers too', () => {
    assert.equal(Object.keys(fieldsFromPairs(pairsOf(1000)).data).length, 1000);
    assertValidationError(() => fieldsFromPairs(pairsOf(1001)), /^fields: at most 1000 fields, got 1001$/);
    const withControls: [string, string][] = [...pairsOf(998), ['_redirect', 'x'], ['_botpoison', 'y'], ['extra', 'z']];
    assertValidationError(() => fieldsFromPairs(withControls), /got 1001$/);
    assertValidationError(() => fieldsFromPairs(pairsOf(5000)), /got 5000$/);
  });

  it('does not count pairs without a name', () => {
    const pairs: [string, string][] = [...pairsOf(1000), ['', 'x'], ['', 'y']];
    assert.equal(Object.keys(fieldsFromPairs(pairs).data).length, 1000);
  });

  it('accepts a 256-character name and refuses a 257-character one', () => {
    assert.equal(fieldsFromPairs([['n'.repeat(256), 'v']]).data['n'.repeat(256)], 'v');
    assertValidationError(() => fieldsFromPairs([['n'.repeat(257), 'v']]), /field name is longer than 256 characters \(257\)/);
    assertValidationError(() => fieldsFromPairs([[`_${'n'.repeat(256)}`, 'v']]), /longer than 256/);
  });

  it('keeps hostile names as own keys and never touches a prototype', () => {
    const parsed = fieldsFromPairs([
      ['__proto__.x', '1'],
      ['__proto__[0]', '2'],
      ['__proto__', '3'],
      ['constructor.prototype.x', '4'],
      ['a.__proto__.x', '5'],
      ['b[__proto__][y]', '6'],
      ['constructor', '7'],
      ['prototype', '8'],
      ['c[constructor][prototype]', '9'],
      ['toString', '10'],
    ]);
    assertPrototypesClean();
    // `constructor` sent twice: the object and the later string are joined, not lost.
    assert.equal(
      JSON.stringify(parsed.data),
      '{"constructor":[{"prototype":{"x":"4"}},"7"],"a":{"__proto__":{"x":"5"}},"b":{"__proto__":{"y":"6"}},' +
        '"prototype":"8","c":{"constructor":{"prototype":"9"}},"toString":"10"}',
    );
    const a = parsed.data.a as Record<string, unknown>;
    assert.ok(Object.hasOwn(a, '__proto__'), 'a.__proto__ is an own key');
    assert.equal(Object.getPrototypeOf(a), Object.prototype);
    assert.equal(Object.getPrototypeOf(parsed.data), Object.prototype);
    // Underscore names are controls: own keys there too.
    assert.ok(Object.hasOwn(parsed.controls, '__proto__'), 'controls.__proto__ is an own key');
    // biome-ignore lint/suspicious/noProto: reading `.__proto__` literally is the test: the own key must shadow the accessor
    assert.equal(parsed.controls.__proto__, '3');
    assert.equal(parsed.controls['__proto__.x'], '1');
    assert.equal(parsed.controls['__proto__[0]'], '2');
    assert.equal(Object.getPrototypeOf(parsed.controls), Object.prototype);
  });

  it('does not mistake inherited names for captcha fields or existing controls', () => {
    const parsed = fromQuery('constructor=1&hasOwnProperty=2&_constructor=3&__defineGetter__=4');
    assert.deepEqual(parsed.captcha, {});
    assert.deepEqual(parsed.data, { constructor: '1', hasOwnProperty: '2' });
    assert.deepEqual(parsed.controls, { _constructor: '3', __defineGetter__: '4' });
  });

  it('keeps Unicode names and values', () => {
    const parsed = fromQuery('名前=山田&住所.市=東京&🎉=🙂👍🏽&emoji[]=🐈&emoji[]=🐕&note=naïve%20café');
    assert.deepEqual(parsed.data, { 名前: '山田', 住所: { 市: '東京' }, '🎉': '🙂👍🏽', emoji: ['🐈', '🐕'], note: 'naïve café' });
  });
});

describe('fieldsFromJson', () => {
  it('refuses a body that is not a JSON object', () => {
    for (const body of [null, [], ['a'], 'text', 42, true, undefined]) {
      assert.throws(
        () => fieldsFromJson(body),
        (error: unknown) => {
          assert.ok(error instanceof ProblemError, `not a ProblemError: ${String(error)}`);
          assert.equal(error.code, 'validation_error');
          assert.deepEqual(error.extra, { errors: ['body: must be a JSON object of fields'] });
          return true;
        },
      );
    }
  });

  it('keeps other keys with their JSON types', () => {
    const body = {
      name: 'Ada',
      age: 36,
      ok: true,
      none: null,
      tags: ['a', 1, [2, { x: false }]],
      address: { city: 'Paris', zip: '75001' },
      empty: {},
      list: [],
    };
    const parsed = fieldsFromJson(body);
    assert.deepEqual(parsed.data, body);
    assert.notEqual(parsed.data.address, body.address);
  });

  it('flattens nested control objects with dots and stringifies their leaves', () => {
    const parsed = fieldsFromJson({
      _redirect: 'https://x.test/ok',
      _append: true,
      _email: { subject: 'Hi', from: 'Site', replyto: 'r@x.test', priority: 2 },
      _feedback: { success: { title: 'T' }, dark: false, nothing: null, list: ['x'], empty: {} },
      name: 'Ada',
    });
    assert.deepEqual(parsed.data, { name: 'Ada' });
    assert.deepEqual(parsed.controls, {
      _redirect: 'https://x.test/ok',
      _append: 'true',
      '_email.subject': 'Hi',
      '_email.from': 'Site',
      '_email.replyto': 'r@x.test',
      '_email.priority': '2',
      '_feedback.success.title': 'T',
      '_feedback.dark': 'false',
      '_feedback.list[0]': 'x',
    });
  });

  it('keeps the first of two spellings of one control', () => {
    assert.equal(fieldsFromJson({ '_email.subject': 'A', _email: { subject: 'B' } }).controls['_email.subject'], 'A');
    assert.equal(fieldsFromJson({ _email: { subject: 'B' }, '_email.subject': 'A' }).controls['_email.subject'], 'B');
  });

  it('moves captcha answers to captcha and drops non-string ones', () => {
    const parsed = fieldsFromJson({ _botpoison: 'bp', 'g-recaptcha-response': 'rc', 'h-captcha-response': 7, 'cf-turnstile-response': 'ts', name: 'Ada' });
    assert.deepEqual(parsed.captcha, { botpoison: 'bp', recaptcha: 'rc', turnstile: 'ts' });
    assert.deepEqual(parsed.data, { name: 'Ada' });
    assert.deepEqual(parsed.controls, {});
  });

  it('drops a top-level key that is empty, keeps a nested one', () => {
    assert.deepEqual(fieldsFromJson({ '': 'x', a: { '': 'y' } }).data, { a: { '': 'y' } });
  });

  it('accepts 8 levels of nesting and refuses 9, in data and in controls', () => {
    assert.deepEqual(fieldsFromJson(nested(8, 'leaf') as object).data, nested(8, 'leaf'));
    assert.deepEqual(fieldsFromJson({ a: [[[[[[['deep']]]]]]] }).data, { a: [[[[[[['deep']]]]]]] });
    assertValidationError(() => fieldsFromJson(nested(9, 'leaf')), /^fields: at most 8 levels of nesting$/);
    assertValidationError(() => fieldsFromJson({ a: [[[[[[[['deep']]]]]]]] }), /at most 8 levels/);
    assert.equal(fieldsFromJson({ _a: nested(7, 'v') }).controls['_a.k1.k2.k3.k4.k5.k6.k7'], 'v');
    assertValidationError(() => fieldsFromJson({ _a: nested(8, 'v') }), /at most 8 levels/);
  });

  it('accepts 1000 leaf values and refuses 1001, an empty object or array counting as one', () => {
    const leaves = (n: number) => Array.from({ length: n }, (_, i) => i);
    assert.equal((fieldsFromJson({ list: leaves(1000) }).data.list as unknown[]).length, 1000);
    assertValidationError(() => fieldsFromJson({ list: leaves(1001) }), /^fields: at most 1000 fields, got 1001$/);
    assertValidationError(() => fieldsFromJson({ list: leaves(999), _redirect: 'x', _botpoison: 'y' }), /got 1001$/);
    const flat = Object.fromEntries(leaves(1001).map((i) => [`f${i}`, {}]));
    assertValidationError(() => fieldsFromJson(flat), /got 1001$/);
    const emptyLists = Object.fromEntries(leaves(1001).map((i) => [`f${i}`, []]));
    assertValidationError(() => fieldsFromJson(emptyLists), /got 1001$/);
  });

  it('accepts 256-character keys and refuses 257, at any level', () => {
    const k = 'k'.repeat(256);
    assert.deepEqual(fieldsFromJson({ [k]: { [k]: 1 } }).data, { [k]: { [k]: 1 } });
    assertValidationError(() => fieldsFromJson({ [`${k}x`]: 1 }), /longer than 256 characters \(257\)/);
    assertValidationError(() => fieldsFromJson({ a: [{ [`${k}x`]: 1 }] }), /longer than 256/);
    assertValidationError(() => fieldsFromJson({ _email: { [`${k}x`]: 'v' } }), /longer than 256/);
  });

  it('keeps __proto__ an own key when copying and never touches a prototype', () => {
    const body: unknown = JSON.parse(
      '{"__proto__": {"x": 1}, "a": {"__proto__": {"y": 2}}, "constructor": {"prototype": {"z": 3}}, "list": [{"__proto__": {"0": 4}}], "_email": {"__proto__": {"x": "c"}}}',
    );
    const parsed = fieldsFromJson(body);
    assertPrototypesClean();
    assert.ok(Object.hasOwn(parsed.data, 'constructor'), 'data.constructor is an own key');
    const a = parsed.data.a as Record<string, unknown>;
    assert.ok(Object.hasOwn(a, '__proto__'), 'a.__proto__ is an own key');
    assert.equal(Object.getPrototypeOf(a), Object.prototype);
    assert.equal(Object.getPrototypeOf((parsed.data.list as object[])[0]), Object.prototype);
    assert.equal(JSON.stringify(parsed.data), '{"a":{"__proto__":{"y":2}},"constructor":{"prototype":{"z":3}},"list":[{"__proto__":{"0":4}}]}');
    // A top-level `__proto__` starts with an underscore: it is a control, flattened like any other.
    assert.deepEqual(Object.keys(parsed.controls), ['__proto__.x', '_email.__proto__.x']);
    assert.equal(parsed.controls['_email.__proto__.x'], 'c');
    assert.equal(parsed.controls['__proto__.x'], '1');
  });

  it('keeps Unicode keys and values', () => {
    assert.deepEqual(fieldsFromJson({ 名前: '山田', '🎉': { '🐈': '🙂👍🏽' } }).data, { 名前: '山田', '🎉': { '🐈': '🙂👍🏽' } });
  });
});

describe('isEmpty', () => {
  it('is true when only controls and captcha answers were sent', () => {
    assert.equal(isEmpty(fromQuery('_redirect=x&_honeypot=&g-recaptcha-response=t&=orphan')), true);
    assert.equal(isEmpty(fieldsFromJson({ _email: { subject: 'Hi' }, _botpoison: 'x' })), true);
    assert.equal(isEmpty(fieldsFromPairs([])), true);
  });

  it('is true when every field is blank: empty or whitespace-only text, null, empty or blank arrays and objects', () => {
    assert.equal(isEmpty(fromQuery('_redirect=x&email=&message=')), true);
    assert.equal(isEmpty(fromQuery('email=%20%20&message=%0D%0A%09&tags[]=&tags[]=+&car.color=')), true);
    assert.equal(isEmpty(fieldsFromJson({ name: null })), true);
    assert.equal(isEmpty(fieldsFromJson({ email: '', message: '   ', tags: [], car: {}, list: [[''], { a: ' ' }], _email: { subject: 'Hi' } })), true);
  });

  it('is false as soon as one field has a value, at any depth', () => {
    assert.equal(isEmpty(fromQuery('email=&message=hi')), false);
    assert.equal(isEmpty(fromQuery('email=&tags[]=&tags[]=x')), false);
    assert.equal(isEmpty(fieldsFromJson({ email: '', list: [[''], { a: 'x' }] })), false);
    // a number or a boolean says something, 0 and false included
    assert.equal(isEmpty(fieldsFromJson({ email: '', count: 0 })), false);
    assert.equal(isEmpty(fieldsFromJson({ agreed: false })), false);
  });
});

describe('isBlankValue', () => {
  it('is true for what says nothing and false for anything else', () => {
    for (const blank of [null, undefined, '', ' \t\r\n', '\u00a0', [], {}, [''], { a: null, b: [[]] }])
      assert.equal(isBlankValue(blank), true, JSON.stringify(blank));
    for (const value of ['x', 0, false, true, 1.5, ['', 'x'], { a: { b: 'x' } }]) assert.equal(isBlankValue(value), false, JSON.stringify(value));
  });
});

describe('filledControls', () => {
  it('names every control sent with a value, whatever its shape: repeated, brackets, dots', () => {
    const parsed = fromQuery('_gotcha=&_gotcha=x&_honeypot[]=y&_trap.a=z&_blank=&_space=%20&_redirect=https://x.test/');
    assert.deepEqual([...parsed.filledControls].sort(), ['_gotcha', '_honeypot[]', '_redirect', '_trap.a']);
    // the first value of a repeated control is still the one used
    assert.equal(parsed.controls._gotcha, '');
  });

  it('names the leaves of JSON objects and arrays under a control, numbers and booleans included', () => {
    const parsed = fieldsFromJson({ _gotcha: ['', 'x'], _honeypot: { a: { b: 1 } }, _flag: false, _none: null, _empty: [], _blank: { a: ' ' } });
    assert.deepEqual([...parsed.filledControls].sort(), ['_flag', '_gotcha[1]', '_honeypot.a.b']);
  });
});

describe('submitterAddress', () => {
  const all = { '_email.replyto': 'one@x.test', _replyto: 'two@x.test', email: 'three@x.test', mail: 'four@x.test' };

  it('takes _email.replyto, then _replyto, then email, then mail', () => {
    const order = ['_email.replyto', '_replyto', 'email', 'mail'] as const;
    for (let i = 0; i < order.length; i++) {
      const present = Object.fromEntries(order.slice(i).map((name) => [name, all[name]]));
      assert.equal(submitterAddress(fieldsFromPairs(Object.entries(present))), present[order[i]!]);
    }
    assert.equal(submitterAddress(fromQuery('name=Ada')), null);
  });

  it('skips an invalid candidate for the next valid one', () => {
    assert.equal(submitterAddress(fromQuery('_email.replyto=not-an-address&_replyto=&email=ada%40example.com')), 'ada@example.com');
    assert.equal(submitterAddress(fromQuery('email=nope&mail=m%40example.org')), 'm@example.org');
    assert.equal(submitterAddress(fromQuery('email=nope&mail=also%20nope')), null);
  });

  it('reads the nested JSON control and top-level string fields only', () => {
    assert.equal(submitterAddress(fieldsFromJson({ _email: { replyto: 'r@example.com' }, email: 'e@example.com' })), 'r@example.com');
    assert.equal(submitterAddress(fieldsFromJson({ email: ['e@example.com'], mail: 'm@example.com' })), 'm@example.com');
    assert.equal(submitterAddress(fieldsFromJson({ contact: { email: 'c@example.com' } })), null);
    assert.equal(submitterAddress(fromQuery('email=a%40example.com&email=b%40example.com')), null);
  });

  it('refuses an address with CR or LF, even at the end', () => {
    for (const bad of ['a@example.com\r\nBcc: victim@example.org', 'a@example.com\n', '\ra@example.com', 'a@exa\nmple.com']) {
      assert.equal(submitterAddress(fieldsFromPairs([['email', bad]])), null, JSON.stringify(bad));
    }
    assert.equal(
      submitterAddress(
        fieldsFromPairs([
          ['_replyto', 'a@example.com\r\n'],
          ['email', 'ok@example.com'],
        ]),
      ),
      'ok@example.com',
    );
  });

  it('trims surrounding spaces', () => {
    assert.equal(submitterAddress(fieldsFromPairs([['email', '  ada@example.com\t']])), 'ada@example.com');
  });

  it('accepts 254 characters and refuses 255', () => {
    const local = 'l'.repeat(64);
    const at254 = `${local}@${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(61)}`;
    const at255 = `${local}@${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(62)}`;
    assert.equal(at254.length, 254);
    assert.equal(submitterAddress(fieldsFromPairs([['email', at254]])), at254);
    assert.equal(submitterAddress(fieldsFromPairs([['email', at255]])), null);
  });

  it('accepts common valid shapes', () => {
    for (const good of ['a@b.co', 'first.last+tag@sub.example.co.uk', "o'brien@example.ie", 'x_y-z@xn--80ak6aa92e.xn--p1ai', 'UPPER@EXAMPLE.COM']) {
      assert.equal(submitterAddress(fieldsFromPairs([['email', good]])), good, good);
    }
  });

  it('refuses malformed addresses', () => {
    const bad = [
      'a@b',
      '@b.co',
      'a@',
      'a@@b.co',
      'a@b@c.co',
      'a b@c.co',
      'a..b@c.co',
      '.a@c.co',
      'a.@c.co',
      'a@-b.co',
      'a@b-.co',
      'a@b..co',
      'a@b.123',
      '"a"@b.co',
      'a@[127.0.0.1]',
      'ユーザー@例え.jp',
      `${'l'.repeat(65)}@b.co`,
      `a@${'d'.repeat(64)}.co`,
    ];
    for (const address of bad) assert.equal(submitterAddress(fieldsFromPairs([['email', address]])), null, address);
  });

  // No timing assertion (the suite has none); a backtracking pattern would hang this test instead.
  it('refuses long near-misses', () => {
    const inputs = [`${'a.'.repeat(120)}!@b.co`, `a@${'b-'.repeat(120)}`, `a@${'b.'.repeat(120)}1`, `${'a'.repeat(250)}@`];
    for (const input of inputs) assert.equal(submitterAddress(fieldsFromPairs([['email', input]])), null, input.slice(0, 20));
  });
});

describe('lone UTF-16 surrogates in fields', () => {
  it('become one U+FFFD each in names and values of a JSON body, at any depth, controls included; a pair stays whole', () => {
    const body: unknown = JSON.parse(
      '{"message": "a\\ud800b\\udc00", "n\\udfff": {"k\\ud800": ["\\udbff"]}, "ok": "\\ud83d\\ude00", "_email": {"subject": "\\ud800"}}',
    );
    const parsed = fieldsFromJson(body);
    assert.deepEqual(parsed.data, { message: 'a\uFFFDb\uFFFD', 'n\uFFFD': { 'k\uFFFD': ['\uFFFD'] }, ok: '😀' });
    assert.equal(parsed.controls['_email.subject'], '\uFFFD');
    assert.equal(JSON.stringify(parsed).includes('\\ud'), false, 'no lone surrogate is left');
  });

  it('become one U+FFFD each in a form post (as a multipart part decoded by hand could carry)', () => {
    const parsed = fieldsFromPairs([
      ['na\ud800me', 'v\udc00'],
      ['list[]', '\ud800'],
    ]);
    assert.deepEqual(parsed.data, { 'na\uFFFDme': 'v\uFFFD', list: ['\uFFFD'] });
  });
});

describe('parts without a name', () => {
  it('are dropped, as busboy reports them (name undefined)', () => {
    const parsed = fieldsFromPairs([
      [undefined as unknown as string, 'v'],
      ['a', 'b'],
    ]);
    assert.deepEqual(parsed.data, { a: 'b' });
  });
});

describe('U+0000 in fields', () => {
  it('becomes U+FFFD in names and values of a form post, controls included', () => {
    const parsed = fieldsFromPairs([
      ['na\0me', 'a\0b'],
      ['list[]', 'x\0'],
      ['_subject', 'hi\0'],
      ['plain', 'kept'],
    ]);
    assert.deepEqual(Object.keys(parsed.data).sort(), ['list', 'na\uFFFDme', 'plain']);
    assert.equal(parsed.data['na\uFFFDme'], 'a\uFFFDb');
    assert.deepEqual(parsed.data.list, ['x\uFFFD']);
    assert.equal(parsed.controls._subject, 'hi\uFFFD');
    assert.equal(JSON.stringify(parsed).includes('\\u0000'), false);
  });

  it('becomes U+FFFD at any depth of a JSON body, and a field named __proto__ stays an own field', () => {
    const parsed = fieldsFromJson(JSON.parse('{"a\\u0000":{"b":["c\\u0000",{"d\\u0000":"e\\u0000"}]},"f":{"__proto__":"x\\u0000"}}'));
    // a renamed field moves to the end of its object
    assert.equal(JSON.stringify(parsed.data), '{"f":{"__proto__":"x\uFFFD"},"a\uFFFD":{"b":["c\uFFFD",{"d\uFFFD":"e\uFFFD"}]}}');
    const f = parsed.data.f as Record<string, unknown>;
    assert.ok(Object.hasOwn(f, '__proto__'));
    assert.equal(({} as Record<string, unknown>).x, undefined);
  });
});
