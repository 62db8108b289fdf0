import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkAutoresponderContent } from '../../src/mail/template-check.js';
import { compileTemplate, compileTemplateCached, htmlToText, RENDER_TIME_LIMIT_MS, RenderLimitError, renderTemplate } from '../../src/mail/template-engine.js';

function compiled(code: string) {
  const result = compileTemplate(code);
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
    const template = compiled('<h1>{{data.name}}</h1>{{#if data.tags}}<ul>{{#each data.tags}}<li>{{this}}</li>{{/each}}</ul>{{/if}}{{#with data.car}}<p>{{color}}</p>{{/with}}');
    const { html, text } = renderTemplate(template, { name: '<script>x</script>', tags: ['a', 'b'], car: { color: 'red' } });
    assert.equal(html, '<h1>&lt;script&gt;x&lt;/script&gt;</h1><ul><li>a</li><li>b</li></ul><p>red</p>');
    assert.equal(text, '<script>x</script>\n- a\n- b\nred');
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
    assert.equal(htmlToText('<p>Hi &amp; welcome</p><p>Line<br>two</p><style>p{}</style>'), 'Hi & welcome\nLine\ntwo');
  });
});

describe('template engine limits', () => {
  const items = Array.from({ length: 1000 }, (_, i) => `v${i}`);

  it('stops a render that grows past 1 MiB while it renders, not after', () => {
    const template = compiled(`{{#each data.a}}{{#each ../data.a}}<p>{{this}}</p>{{/each}}{{/each}}`);
    assert.throws(() => renderTemplate(template, { a: items }), (err) => err instanceof RenderLimitError && /larger than 1048576/.test(err.message));
  });

  it(`stops a render that runs longer than ${RENDER_TIME_LIMIT_MS} ms, even when it outputs nothing`, () => {
    const template = compiled(`{{#each data.a}}{{#each ../data.a}}{{#each ../../data.a}}{{/each}}{{/each}}{{/each}}`);
    const started = Date.now();
    assert.throws(() => renderTemplate(template, { a: items }), (err) => err instanceof RenderLimitError && /longer than/.test(err.message));
    assert.ok(Date.now() - started < 60_000, 'a billion iterations were not run');
  });

  it('keeps each working as usual: @index, else, and a fresh budget per render', () => {
    const template = compiled(`<ul>{{#each data.a}}<li>{{@index}}:{{this}}</li>{{else}}none{{/each}}</ul>`);
    assert.equal(renderTemplate(template, { a: ['x', 'y'] }).html, '<ul><li>0:x</li><li>1:y</li></ul>');
    assert.equal(renderTemplate(template, { a: [] }).html, '<ul>none</ul>');
    const wide = compiled(`{{#each data.a}}{{this}}{{/each}}`);
    for (let i = 0; i < 3; i++) assert.equal(renderTemplate(wide, { a: items }).html.length, items.join('').length);
  });

  it('remembers compiled code, refusals too', () => {
    const code = `<p>{{data.name}}</p>`;
    const first = compileTemplateCached(code);
    assert.ok(first.ok);
    assert.equal((compileTemplateCached(code) as typeof first).template, first.template, 'the same compiled template');
    assert.deepEqual(compileTemplateCached('{{#if}}'), compileTemplate('{{#if}}'));
  });
});

describe('autoresponder content check', () => {
  it('lets a polite acknowledgement through, with a real link to the company site', () => {
    const verdict = checkAutoresponderContent('<p>Hi {{data.name}}, thanks for contacting us. We reply within two working days.</p><p><a href="https://acme.example">Acme</a> Support</p>');
    assert.deepEqual(verdict, { paused: false, reasons: [] });
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
