import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { renderAccountMessage } from '../../src/mail/account-mail.js';
import { planChangeMessage } from '../../src/mail/plan-change.js';
import { quotaNoticeMessage } from '../../src/mail/quota-notice.js';

const change = {
  workspace: { id: 'w1', name: 'Shop <b>&</b>', ownerId: 'u1', submissionsUsed: 10 },
  from: 'FREE' as const,
  to: 'BUNDLE_50000' as const,
  released: 3,
};
const terms = { allowance: 50_000, left: 49_990, upgraded: true, fromLabel: 'Free', toLabel: 'Upgraded (50,000 submissions)' };

describe('account emails: the card layout of the notifications, every value escaped', () => {
  it('the plan change email has the name, the card, the button and the small print, and names plans as people read them', () => {
    const { subject, html, text } = renderAccountMessage(planChangeMessage(change, terms, 'https://forms.example.com'));
    assert.equal(subject, 'Workspace "Shop <b>&</b>" is now on the Upgraded (50,000 submissions) plan');
    assert.match(html, /^<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n/);
    assert.match(html, /<title>Workspace "Shop &lt;b&gt;&amp;&lt;\/b&gt;" is now on the Upgraded \(50,000…<\/title>/, 'the subject, cut to 70 characters');
    assert.match(html, /<body style="margin:0;padding:24px;background:#f9fafb;/);
    assert.match(html, /<p style="[^"]*font-weight:700[^"]*">Formgate<\/p>/);
    assert.match(html, /<div style="background:#ffffff;border:1px solid #e5e7eb;border-radius:8px;padding:24px;">/);
    assert.match(html, /<a href="https:\/\/forms\.example\.com\/w\/w1" style="display:inline-block;[^"]*">Open the workspace<\/a>/);
    assert.ok(html.includes('Shop &lt;b&gt;&amp;&lt;/b&gt;'), 'the name escaped');
    assert.ok(!html.includes('<b>&'), 'nothing of the name as markup');
    assert.ok(!/FREE|BUNDLE_50000/.test(html + text), 'no plan code');
    assert.match(text, /changed from Free to Upgraded \(50,000 submissions\)\./);
    assert.match(text, /3 held submissions were released/);
  });

  it('the allowance notice wears the same card', () => {
    const { html } = quotaNoticeMessage({ name: 'Shop', id: 'w1', plan: 'Free', allowance: 250, held: 250, url: 'https://forms.example.com/w/w1' });
    assert.match(html, /<p style="[^"]*font-weight:700[^"]*">Formgate<\/p>/);
    assert.match(html, /<div style="background:#ffffff;border:1px solid #e5e7eb;border-radius:8px;padding:24px;">/);
    assert.match(html, /You receive this email once each time the allowance runs out\./);
  });
});
