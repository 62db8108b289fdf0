import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkAutoresponderContent } from '../../src/mail/template-check.js';
import { compileTemplate, htmlToText, renderTemplate } from '../../src/mail/template-engine.js';

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
