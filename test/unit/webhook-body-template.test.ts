import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { finishWebhookBody, webhookBodyProblems, WEBHOOK_BODY_TEMPLATE_MAX } from '../../src/domain/webhook-body.js';
import { compileTemplate, renderTemplate } from '../../src/mail/template-engine.js';
import { TemplateWorkers } from '../../src/mail/template-workers.js';

/** The body `code` makes with `data` in `as`, checked as it is sent; throws when it does not compile. */
function body(code: string, data: Record<string, unknown>, as: 'json' | 'urlencoded' = 'json') {
  const compiled = compileTemplate(code, undefined, as);
  if (!compiled.ok) throw new Error(compiled.errors.join('; '));
  return finishWebhookBody(as === 'json' ? 'json-template' : 'urlencoded-template', renderTemplate(compiled.template, data, undefined, {}, as).html);
}

const TRICKY = 'Ada "the" \\ Lovelace\nline two\t</script><b>&amp;</b> 😀 é \u2028';

describe('webhook body templates: JSON', () => {
  it('JSON-escapes a value inside a JSON string (quotes, backslashes, newlines, </script>, unicode), never HTML-escapes it', () => {
    const out = body('{"text": "From {{data.name}}", "email": "{{data.email}}"}', { name: TRICKY, email: 'ada@example.com' });
    assert.ok(out.ok, !out.ok ? out.error : '');
    assert.deepEqual(JSON.parse(out.body), { text: `From ${TRICKY}`, email: 'ada@example.com' });
    assert.doesNotMatch(out.body, /&quot;|&lt;|&#x27;/, 'no HTML entities');
  });

  it('writes a placeholder outside a string as the JSON value itself: objects, arrays, numbers, booleans, null for a missing field', () => {
    const data = { car: { color: 'red', size: { l: 1 } }, tags: ['a', 'b"'], n: 3.5, ok: true, name: TRICKY };
    const out = body('{"car": {{data.car}}, "tags": {{data.tags}}, "n": {{data.n}}, "ok": {{data.ok}}, "missing": {{data.none}}, "name": {{data.name}}}', data);
    assert.ok(out.ok);
    assert.deepEqual(JSON.parse(out.body), { car: data.car, tags: data.tags, n: 3.5, ok: true, missing: null, name: TRICKY });
  });

  it('prints an object inside a string as its name: value lines, escaped', () => {
    const out = body('{"text": "{{data.car}}"}', { car: { color: 'red', size: 'L' } });
    assert.ok(out.ok);
    assert.deepEqual(JSON.parse(out.body), { text: 'color: red\nsize: L' });
  });

  it('reads three closing braces as a placeholder and a JSON brace, and loops with each', () => {
    const out = body('{"a": {"b": {{data.b}}}}', { b: { c: 1 } });
    assert.ok(out.ok);
    assert.deepEqual(JSON.parse(out.body), { a: { b: { c: 1 } } });
    const list = body('{"items": [{{#each data.tags}}{{#unless @first}}, {{/unless}}{"i": {{@index}}, "v": "{{this}}"}{{/each}}]}', { tags: ['x', 'y"'] });
    assert.ok(list.ok);
    assert.deepEqual(JSON.parse(list.body), {
      items: [
        { i: 0, v: 'x' },
        { i: 1, v: 'y"' },
      ],
    });
  });

  it('keeps a string that the template itself escapes as a string: an escaped quote does not end it', () => {
    const out = body('{"a": "say \\"{{data.x}}\\" now"}', { x: '"hi"' });
    assert.ok(out.ok);
    assert.deepEqual(JSON.parse(out.body), { a: 'say ""hi"" now' });
  });

  it('refuses a body that is not JSON, saying why', () => {
    const out = body('{"a": {{data.x}},}', { x: 1 });
    assert.equal(out.ok, false);
    assert.match(!out.ok ? out.error : '', /^the body is not valid JSON: /);
    const list = body('[{{#each data.tags}}"{{this}}"{{/each}}]', { tags: ['a', 'b'] });
    assert.equal(list.ok, false, 'items without commas');
  });

  it('refuses a helper used inline, and what every template refuses (unknown helpers, unescaped output, prototypes)', () => {
    for (const code of ['{"a": {{if data.x "y"}} }', '{"a": "{{upper data.x}}"}', '{"a": "{{& data.x}}" }', '{"a": "{{data.constructor}}"}']) {
      const compiled = compileTemplate(code, undefined, 'json');
      assert.equal(compiled.ok, false, code);
    }
  });
});

describe('webhook body templates: form fields', () => {
  it('percent-encodes each value, reads pairs on lines or after &, and sends them as a form post encodes them', () => {
    const out = body('entry.1={{data.name}}\nentry 2={{data.tags}}&plain=a+b', { name: TRICKY, tags: ['x', 'y&z=1'] }, 'urlencoded');
    assert.ok(out.ok);
    const pairs = [...new URLSearchParams(out.body)];
    assert.deepEqual(pairs, [
      ['entry.1', TRICKY],
      ['entry 2', 'x, y&z=1'],
      ['plain', 'a b'],
    ]);
    assert.doesNotMatch(out.body, /\n/);
  });

  it('refuses a part that is not a name=value pair, or a body with none', () => {
    const bad = body('name={{data.name}}\njust words', { name: 'x' }, 'urlencoded');
    assert.deepEqual(bad, { ok: false, error: 'the body\'s part "just words" is not a name=value pair' });
    assert.equal(body('{{data.none}}', {}, 'urlencoded').ok, false);
    assert.equal(body('=x', {}, 'urlencoded').ok, false);
  });
});

describe('webhook body settings', () => {
  it('names the field of each problem found before rendering', () => {
    assert.deepEqual(webhookBodyProblems('xml', ''), ['webhookBodyFormat: must be one of json, json-template, urlencoded-template']);
    assert.deepEqual(webhookBodyProblems('json', ''), []);
    assert.deepEqual(webhookBodyProblems('json-template', '  '), ['webhookBodyTemplate: must not be empty with this body format']);
    assert.deepEqual(webhookBodyProblems('json-template', 'x'.repeat(WEBHOOK_BODY_TEMPLATE_MAX + 1)), [
      `webhookBodyTemplate: must be at most ${WEBHOOK_BODY_TEMPLATE_MAX} characters`,
    ]);
  });
});

describe('webhook body templates on the template workers', () => {
  const workers = new TemplateWorkers({ size: 1 });
  after(() => workers.close());

  it('renders and checks the body on a worker thread; the same code as an email template is compiled apart', async () => {
    const code = '{"text": "{{data.name}}"}';
    const json = await workers.renderBody(code, { name: '<b>"x"</b>' }, 'json');
    assert.deepEqual(json, { ok: true, html: '{"text": "<b>\\"x\\"</b>"}', text: '{"text": "<b>\\"x\\"</b>"}' });
    const html = await workers.render(code, { name: '<b>"x"</b>' });
    assert.ok(html.ok && html.html.includes('&lt;b&gt;'), 'an email still escapes HTML');
    const bad = await workers.renderBody('{"a": {{data.x}} "b"}', { x: 1 }, 'json');
    assert.equal(bad.ok, false);
    assert.ok(!bad.ok && bad.problem === 'invalid');
  });

  it('stops a runaway loop at the render budget instead of holding a thread', async () => {
    const list = Array.from({ length: 500 }, (_, i) => i);
    const code = '[{{#each data.l}}{{#each ../data.l}}{{#each ../../data.l}}{{this}}{{/each}}{{/each}}{{/each}}]';
    const outcome = await workers.renderBody(code, { l: list }, 'json');
    assert.equal(outcome.ok, false);
    assert.ok(!outcome.ok && outcome.problem === 'too_large', JSON.stringify(outcome));
  });
});
