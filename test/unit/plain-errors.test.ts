import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { settingsWords } from '../../src/dashboard/form-settings-sections.js';
import { plainMessage } from '../../src/dashboard/plain-errors.js';

describe('plain-errors: a validator’s message as a sentence about its field (issue 41, item 11)', () => {
  it('says the settings page’s validator messages in plain words, naming the field as its label does', () => {
    const cases: [string, string, string][] = [
      ['thanksTitle', 'must NOT have more than 200 characters', 'The thank-you title can be at most 200 characters.'],
      ['name', 'must NOT have fewer than 1 characters', 'The name cannot be empty.'],
      ['notificationEmails[1]', 'must be an e-mail address', 'Address 2 must be an email address, such as name@example.com.'],
      ['notificationEmails', 'must NOT have more than 100 items', 'The list of notification addresses can hold at most 100 entries.'],
      [
        'notificationEmails',
        'must NOT have duplicate items (items ## 1 and 0 are identical)',
        'The list of notification addresses lists the same entry twice (entries 1 and 2).',
      ],
      ['webhookUrl', 'must be an absolute URL', 'The webhook URL must be a full web address that starts with https:// or http://.'],
      ['spamProtection', 'must be one of "BOTPOISON", "TURNSTILE"', 'The spam protection must be one of the choices offered.'],
      [
        'fileUploads.maxFileSize',
        'a FREE workspace allows at most 10485760 bytes (10 MB)',
        'The largest file can be at most 10 MB: a FREE workspace allows no more.',
      ],
      [
        'fileUploads.maxFileSize',
        'must not be more than maxTotalSize (a file is part of its submission)',
        'The largest file must not be more than the size of all files of a submission (a file is part of its submission).',
      ],
      [
        'closesAt',
        'must be a date and time such as 2030-01-31T18:00:00Z, or null for never',
        'The closing time must be a date and time such as 2030-01-31T18:00:00Z, or empty for never.',
      ],
      ['url', 'The URL must use https.', 'The URL must use https.'],
      [
        'spamProtection',
        "no TURNSTILE secret key is stored for this form; store it first on the form's Settings page in the dashboard (Secret keys), or with formgate forms set-secret",
        'No Cloudflare Turnstile secret key is stored for this form: store it under Secret keys first, or choose another.',
      ],
    ];
    for (const [field, message, plain] of cases) assert.equal(settingsWords(field, message), plain, `${field}: ${message}`);
  });

  it('gives a field it was not told about a sensible sentence too', () => {
    assert.equal(plainMessage('someNewLimit', 'must NOT have more than 64 characters', {}), 'The some new limit can be at most 64 characters.');
    assert.equal(plainMessage('tags[2]', 'must be <= 10', {}), 'Tags, entry 3 can be at most 10.');
    assert.equal(plainMessage('colour', 'must be red or blue', {}), 'The colour must be red or blue.');
  });
});
