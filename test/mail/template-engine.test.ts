import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkAutoresponderContent } from '../../src/mail/template-check.js';
import { printable } from '../../src/mail/template-budget.js';
import { compileTemplate, htmlToText, RenderLimitError, renderTemplate, TEMPLATE_LIMITS } from '../../src/mail/template-engine.js';

/** A clock that never moves: only the output limit can stop a render. */
const stoppedClock = () => 0;

function compiled(code: string) {
  const result = compileTemplate(code, { ...TEMPLATE_LIMITS, now: stoppedClock });
  assert.ok(result.ok, `compiles: ${JSON.stringify(result)}`);
  return result.template;
}

function problems(code: string): string[] {
  const result = compileTemplate(code);
  assert.ok(!result.ok, `${code} is refused`);
  return result.errors;
}

describe('template engine', () => {
  it('renders submission fields under data, escaped, with if/unless/each/with', () => {
    const template = compiled(
      '<h1>{{data.name}}</h1>{{#if data.tags}}<ul>{{#each data.tags}}<li>{{this}}</li>{{/each}}</ul>{{/if}}{{#with data.car}}<p>{{color}}</p>{{/with}}',
    );
    const { html, text } = renderTemplate(template, { name: '<script>x</script>', tags: ['a', 'b'], car: { color: 'red' } });
    assert.equal(html, '<h1>&lt;script&gt;x&lt;/script&gt;</h1><ul><li>a</li><li>b</li></ul><p>red</p>');
    assert.equal(text, '<script>x</script>\n\n- a\n- b\n\nred');
  });

  it('refuses what does not compile with one entry per problem', () => {
    assert.equal(problems('{{#if data.x}}open').length, 1);
    const several = problems('{{> header}}{{{data.raw}}}{{lookup data "x"}}{{data.constructor}}{{& data.y}}');
    assert.equal(several.length, 5, JSON.stringify(several));
    assert.ok(several.some((e) => /partials/.test(e)));
    assert.ok(several.some((e) => /unescaped/.test(e)));
    assert.ok(several.some((e) => /unknown helper "lookup"/.test(e)));
    assert.ok(several.some((e) => /"constructor" cannot be reached/.test(e)));
    assert.match(several[0]!, /^line 1, column \d+: /);
    assert.deepEqual(problems('x'.repeat(262_145)), ['code: longer than 262144 characters']);
  });

  it('cannot reach prototypes through the data', () => {
    const template = compiled('[{{data.toString}}][{{data.hasOwnProperty}}][{{data.a.valueOf}}]');
    assert.equal(renderTemplate(template, { a: {} }).html, '[][][]');
    for (const path of ['data.__proto__.polluted', 'data.a.__defineGetter__', 'data.prototype']) assert.ok(!compileTemplate(`{{${path}}}`).ok, path);
  });

  it('turns HTML into a readable text alternative', () => {
    assert.equal(htmlToText('<p>Hi &amp; welcome</p><p>Line<br>two</p><style>p{}</style>'), 'Hi & welcome\n\nLine\ntwo');
  });
});

/** A clock that moves `stepMs` each time it is read: a render's time no longer depends on the machine. */
function steppingClock(stepMs: number): () => number {
  let t = 0;
  return () => (t += stepMs);
}

describe('template engine limits', () => {
  const items = Array.from({ length: 1000 }, (_, i) => `v${i}`);
  const outputOnly = { ...TEMPLATE_LIMITS, now: stoppedClock };

  it('stops a render that grows past 1 MiB while it renders, not after', () => {
    const template = compiled(`{{#each data.a}}{{#each ../data.a}}<p>{{this}}</p>{{/each}}{{/each}}`);
    assert.throws(
      // the output alone: this many steps would be stopped at 100,000 first
      () => renderTemplate(template, { a: items }, { ...outputOnly, steps: Number.POSITIVE_INFINITY }),
      (err) => err instanceof RenderLimitError && err.limit === 'output' && /larger than 1048576/.test(err.message),
    );
  });

  it('stops at the first print past 1 MiB: a 1.9 MB value in many placeholders never builds the string', () => {
    const template = compiled(Array.from({ length: 500 }, () => '{{data.big}}').join(''));
    const big = 'x'.repeat(1_900_000);
    let reads = 0;
    const clock = () => {
      reads++;
      return 0;
    };
    assert.throws(
      () => renderTemplate(template, { big }, { ...TEMPLATE_LIMITS, now: clock }),
      (err) => err instanceof RenderLimitError && err.limit === 'output',
    );
    assert.ok(reads <= 3, `stopped at the first value, after ${reads} readings of the clock`);
  });

  it('bounds sections over arrays ({{#data.a}}) as each is bounded', () => {
    const template = compiled(`{{#data.a}}{{#../data.a}}<p>abcdefghij</p>{{/../data.a}}{{/data.a}}`);
    assert.throws(
      () => renderTemplate(template, { a: items }, outputOnly),
      (err) => err instanceof RenderLimitError && err.limit === 'output',
    );
    assert.equal(renderTemplate(template, { a: ['x', 'y'] }, outputOnly).html, '<p>abcdefghij</p>'.repeat(4));
  });

  it('stops a render past its steps, the same on any machine, even when it outputs nothing', () => {
    const nested = compiled(`{{#each data.a}}{{#each ../data.a}}{{#each ../../data.a}}{{/each}}{{/each}}{{/each}}`);
    // a thousand million iterations: stopped at the 100,001st step, with a clock that never moves
    assert.throws(
      () => renderTemplate(nested, { a: items }, outputOnly),
      (err) => err instanceof RenderLimitError && err.limit === 'steps' && /more than 100000 steps/.test(err.message),
    );
    // each iteration, printed value and condition is a step: exactly at the limit renders, one more does not
    const loop = compiled(`{{#each data.a}}{{#if this}}{{this}}{{/if}}{{/each}}`);
    const limits = { timeMs: 1, outputChars: 1_000, steps: 12, now: stoppedClock };
    assert.equal(renderTemplate(loop, { a: ['x', 'y', 'z', 'w'] }, limits).html, 'xyzw');
    assert.throws(
      () => renderTemplate(loop, { a: ['x', 'y', 'z', 'w', 'v'] }, limits),
      (err) => err instanceof RenderLimitError && err.limit === 'steps',
    );
  });

  it(`keeps a time limit as a safety net, far past the steps' worth`, () => {
    const template = compiled(`{{#each data.a}}{{#each ../data.a}}{{#each ../../data.a}}{{/each}}{{/each}}{{/each}}`);
    // every reading of the clock is 1 ms later: the limit of 5,000 ms is reached at the 5,000th step, on any machine
    assert.throws(
      () => renderTemplate(template, { a: items }, { ...TEMPLATE_LIMITS, now: steppingClock(1) }),
      (err) => err instanceof RenderLimitError && err.limit === 'time' && /longer than 5000 ms/.test(err.message),
    );
    const small = compiled(`{{#each data.a}}{{this}}{{/each}}`);
    assert.equal(renderTemplate(small, { a: ['x', 'y'] }, { timeMs: 1_000, outputChars: 10, now: steppingClock(1) }).html, 'xy');
  });

  it('counts every character once: output just under the limit renders, whatever the nesting', () => {
    const row = '<tr><td>0123456789</td></tr>';
    const template = compiled(`{{#each data.a}}{{#each ../data.b}}<tr><td>{{this}}</td></tr>{{/each}}{{/each}}`);
    const b = Array.from({ length: 100 }, () => '0123456789');
    const a = Array.from({ length: 10 }, () => 1);
    const limit = row.length * 1000;
    assert.equal(renderTemplate(template, { a, b }, { timeMs: 1, outputChars: limit, now: stoppedClock }).html.length, limit);
    assert.throws(() => renderTemplate(template, { a, b }, { timeMs: 1, outputChars: limit - 1, now: stoppedClock }), RenderLimitError);
  });

  it('keeps each working as usual: @index, else, and a fresh budget per render', () => {
    const template = compiled(`<ul>{{#each data.a}}<li>{{@index}}:{{this}}</li>{{else}}none{{/each}}</ul>`);
    assert.equal(renderTemplate(template, { a: ['x', 'y'] }).html, '<ul><li>0:x</li><li>1:y</li></ul>');
    assert.equal(renderTemplate(template, { a: [] }).html, '<ul>none</ul>');
    const wide = compiled(`{{#each data.a}}{{this}}{{/each}}`);
    for (let i = 0; i < 3; i++) assert.equal(renderTemplate(wide, { a: items }, outputOnly).html.length, items.join('').length);
  });

  it('refuses, when compiled, a template that fails with no data or outgrows the limits with none', () => {
    assert.deepEqual(problems('{{#if}}x{{/if}}'), ['#if requires exactly one argument']);
    const tooLarge = compileTemplate('<p>0123456789</p>'.repeat(100), { timeMs: 250, outputChars: 100, now: stoppedClock });
    assert.deepEqual(tooLarge, { ok: false, errors: ['rendered with no data, the rendered template is larger than 100 characters'] });
  });
});

describe('template engine: any submitted shape renders', () => {
  const SHAPES: Record<string, unknown>[] = [
    { car: { color: 'red' } },
    { car: { color: 'red', wheels: [{ size: 16 }, { size: 17 }], extras: ['roof', 'tow bar'] }, n: 3, yes: true, no: false, none: null },
    { tags: ['a', 'b'], nested: [[1, 2], [3]], empty: {}, list: [] },
    JSON.parse('{"__proto__": {"x": 1}, "constructor": "c", "toString": "t", "valueOf": {"a": 1}, "hasOwnProperty": [1], "toHTML": "h"}'),
    { deep: JSON.parse(`${'{"a":'.repeat(40)}1${'}'.repeat(40)}`) },
    { s: '<b>&"\'</b>', n: -0, big: 1e21, unicode: 'é😀' },
  ];
  const TEMPLATES = [
    '{{data}}',
    '{{data.car}}',
    '{{data.car.color}}{{data.car.wheels}}{{data.car.extras}}',
    '{{#each data}}{{@key}}={{this}};{{/each}}',
    '{{#each data}}{{#each this}}[{{@key}}:{{this}}]{{/each}}{{/each}}',
    '{{#with data.car}}{{this}}|{{color}}{{/with}}',
    '{{#data.tags}}<{{this}}>{{/data.tags}}{{^data.list}}none{{/data.list}}',
    '{{#if data.car}}{{data.car}}{{else}}-{{/if}}{{#unless data.n}}zero{{/unless}}',
    '{{data.s.length}}{{data.tags.length}}{{data.toString}}{{data.car.toString}}{{data.valueOf}}{{data.toHTML}}',
    '{{#each data.nested}}{{#each this}}{{this}}{{/each}}{{/each}}{{this}}{{.}}{{data.deep}}',
  ];

  it('prints objects as name: value lines and lists joined, and renders every shape into every template', () => {
    assert.equal(renderTemplate(compiled('<p>{{data.car}}</p>'), { car: { color: 'red' } }).html, '<p>color: red</p>');
    assert.equal(
      renderTemplate(compiled('{{data}}'), { name: 'Ada', car: { color: 'red', extras: ['roof', 'tow bar'] } }).text,
      'name: Ada\ncar.color: red\ncar.extras: roof, tow bar',
    );
    assert.equal(printable([{ a: 1 }, 2]), '[0].a: 1\n[1]: 2');
    assert.equal(printable(null), '');
    for (const code of TEMPLATES) {
      const template = compiled(code);
      for (const data of SHAPES) {
        const { html, text } = renderTemplate(template, data);
        assert.equal(typeof html, 'string', `${code} with ${JSON.stringify(data)}`);
        assert.equal(typeof text, 'string');
      }
    }
  });

  it('prints {{submissionUrl}} as given (a notification’s), escaped, and nothing when none is given (the autoresponder, a subject)', () => {
    const template = compiled(
      '<a href="{{submissionUrl}}">Open</a>{{#each files}}[{{../submissionUrl}}]{{/each}}{{#with data}}{{@root.submissionUrl}}|{{submissionUrl}}{{/with}}',
    );
    const url = 'https://forms.example/submissions/a?b=1&c="2"';
    const escaped = 'https://forms.example/submissions/a?b&#x3D;1&amp;c&#x3D;&quot;2&quot;';
    const extras = { submissionUrl: url, files: [{ name: 'cv.pdf' }] };
    assert.equal(
      renderTemplate(template, { submissionUrl: 'typed by a visitor' }, TEMPLATE_LIMITS, extras).html,
      `<a href="${escaped}">Open</a>[${escaped}]${escaped}|typed by a visitor`,
    );
    assert.equal(renderTemplate(template, {}).html, '<a href="">Open</a>|');
    assert.equal(renderTemplate(compiled('Lead: {{submissionUrl}}'), {}, TEMPLATE_LIMITS, {}, 'text').text, 'Lead: ');
  });

  it('keeps fields named like prototype members as plain fields', () => {
    const data = JSON.parse('{"__proto__": "p", "constructor": "c", "toString": "t"}');
    assert.equal(renderTemplate(compiled('{{#each data}}{{@key}}={{this}};{{/each}}'), data).html, '__proto__=p;constructor=c;toString=t;');
    assert.equal(renderTemplate(compiled('{{data.toString}}'), data).html, 't');
    assert.equal(({} as Record<string, unknown>).x, undefined, 'nothing was polluted');
  });

  it('renders random shapes into random templates without an error other than a limit (bounded: 300 cases)', () => {
    let seed = 42;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const names = ['a', 'b', 'car', 'constructor', 'toString', '__proto__', 'length', '0'];
    const value = (depth: number): unknown => {
      switch (depth > 3 ? random(4) : random(7)) {
        case 0:
          return 'text <&>';
        case 1:
          return random(2) === 0 ? random(1000) : -1.5;
        case 2:
          return random(2) === 0;
        case 3:
          return null;
        case 4:
          return Array.from({ length: random(4) }, () => value(depth + 1));
        default:
          return Object.fromEntries(Array.from({ length: random(4) }, () => [names[random(names.length)]!, value(depth + 1)]));
      }
    };
    const paths = ['data', 'data.a', 'data.car', 'data.a.b', 'data.car.length', 'this', 'data.toString', 'data.a.0'];
    for (let i = 0; i < 300; i++) {
      const path = paths[random(paths.length)]!;
      const code = [`{{${path}}}`, `{{#each ${path}}}{{@key}}{{this}}{{/each}}`, `{{#with ${path}}}{{this}}{{/with}}`, `{{#${path}}}{{this}}{{/${path}}}`][
        random(4)
      ]!;
      const data = value(0);
      const fields = (data && typeof data === 'object' && !Array.isArray(data) ? data : { a: data }) as Record<string, unknown>;
      try {
        renderTemplate(compiled(code), fields);
      } catch (error) {
        assert.ok(error instanceof RenderLimitError, `${code} with ${JSON.stringify(fields)}: ${error}`);
      }
    }
  });
});

describe('htmlToText', () => {
  it('stays linear on what made its patterns scan on from every start (1 MiB each)', { timeout: 60_000 }, () => {
    const size = 1_048_576;
    assert.equal(htmlToText('<'.repeat(size)), '<'.repeat(size));
    assert.equal(htmlToText('<li'.repeat(size / 3)).length, Math.floor(size / 3) * 3);
    assert.equal(htmlToText(`a${' '.repeat(size)}b\nc`), `a${' '.repeat(size)}b\nc`);
    assert.equal(htmlToText('<script>'.repeat(size / 8)), '<script>'.repeat(size / 8).replace(/<[^<>]+>/g, ''));
    assert.equal(htmlToText('<p>x</p><script>a</script><STYLE>b</style>y<script>open'), 'x\n\nyopen');
  });
});

describe('autoresponder content check', () => {
  it('lets a polite acknowledgement through, with a real link to the company site', () => {
    const verdict = checkAutoresponderContent(
      '<p>Hi {{data.name}}, thanks for contacting us. We reply within two working days.</p><p><a href="https://acme.example">Acme</a> Support</p>',
    );
    assert.deepEqual(verdict, { paused: false, reasons: [] });
  });

  it('reads the largest code in time proportional to its length, whatever it holds', { timeout: 60_000 }, () => {
    // each of these took 18 s or more (the event loop held) when a pattern scanned on from every `{{` or `<`
    for (const code of ['\\{{'.repeat(87_000), '<li'.repeat(87_000), '<'.repeat(262_000), `a${' '.repeat(262_000)}b`]) {
      assert.equal(checkAutoresponderContent(code).paused, false);
    }
  });

  it('pauses marketing phrasing and bare links', () => {
    const marketing = checkAutoresponderContent('<p>Limited time offer! Buy now with our discount.</p>');
    assert.equal(marketing.paused, true);
    assert.match(marketing.reasons[0]!, /marketing phrasing/);
    const link = checkAutoresponderContent('<p>Thanks! See https://deals.example.com/x</p>');
    assert.equal(link.paused, true);
    assert.deepEqual(link.reasons, ['1 bare link(s)']);
  });
});
