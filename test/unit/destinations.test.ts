import assert from 'node:assert/strict';
import { createVerify, generateKeyPairSync } from 'node:crypto';
import { describe, it } from 'node:test';
import {
  checkDestination,
  consentGiven,
  mailchimpDataCentre,
  mappedFields,
  notionDatabaseId,
  serviceAccountKeyOf,
  spreadsheetIdOf,
} from '../../src/domain/destinations.js';
import { columnLetters, fieldCells, serviceAccountAssertion } from '../../src/jobs/channels/destination-apis.js';

const publicOnly = () => null;

describe('destinations: what the owner types, checked', () => {
  it('finds a Notion database’s id in its link or as typed, dashed as the API writes it', () => {
    const dashed = '01234567-89ab-cdef-0123-456789abcdef';
    assert.equal(notionDatabaseId('0123456789abcdef0123456789abcdef'), dashed);
    assert.equal(notionDatabaseId(dashed), dashed);
    assert.equal(notionDatabaseId('https://www.notion.so/acme/Leads-0123456789ABCDEF0123456789abcdef?v=ffffffffffffffffffffffffffffffff&pvs=4'), dashed);
    assert.equal(notionDatabaseId('https://www.notion.so/acme/Leads'), null);
  });

  it('finds a spreadsheet’s id in its link', () => {
    const id = '1AbCdEfGhIjKlMnOpQrStUvWxYz0123456789';
    assert.equal(spreadsheetIdOf(`https://docs.google.com/spreadsheets/d/${id}/edit#gid=0`), id);
    assert.equal(spreadsheetIdOf(id), id);
    assert.equal(spreadsheetIdOf('my sheet'), null);
  });

  it('reads Mailchimp’s data centre from the key', () => {
    assert.equal(mailchimpDataCentre('0123456789abcdef0123456789abcdef-us21'), 'us21');
    assert.equal(mailchimpDataCentre('0123456789abcdef0123456789abcdef-us21.evil.example/'), null);
    assert.equal(mailchimpDataCentre('0123456789abcdef0123456789abcdef'), null);
  });

  it('takes a service account’s JSON key and refuses anything else, saying why', () => {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const key = { type: 'service_account', client_email: 'writer@p.iam.gserviceaccount.com', private_key: pem, private_key_id: 'k1', project_id: 'p' };
    assert.deepEqual(serviceAccountKeyOf(JSON.stringify(key)), { client_email: key.client_email, private_key: pem, private_key_id: 'k1' });
    assert.equal(serviceAccountKeyOf('not json'), 'Paste the whole JSON key file of the service account, from { to }.');
    assert.equal(
      serviceAccountKeyOf(JSON.stringify({ ...key, type: 'authorized_user' })),
      'This is not a service account’s key: its "type" must be "service_account".',
    );
    assert.match(String(serviceAccountKeyOf(JSON.stringify({ ...key, client_email: undefined }))), /no "client_email"/);
    assert.match(String(serviceAccountKeyOf(JSON.stringify({ ...key, private_key: 'abc' }))), /no "private_key"/);
    assert.match(
      String(serviceAccountKeyOf(JSON.stringify({ ...key, private_key: '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n' }))),
      /cannot be read/,
    );
    // stored as its address and key only; the address is kept in the settings, to show
    const checked = checkDestination(
      'google-sheets',
      { spreadsheetId: '1AbCdEfGhIjKlMnOpQrStUvWxYz0123456789', secret: JSON.stringify(key) },
      false,
      publicOnly,
    );
    assert.ok(checked.ok);
    assert.equal(checked.settings.clientEmail, key.client_email);
    assert.equal(checked.settings.sheet, 'Sheet1');
    assert.deepEqual(JSON.parse(checked.secret!), { client_email: key.client_email, private_key: pem, private_key_id: 'k1' });
  });

  it('requires the secret when adding, keeps the stored one when changing', () => {
    const adding = checkDestination('brevo', { listId: '7', consentField: 'newsletter' }, false, publicOnly);
    assert.deepEqual(adding, { ok: false, problems: { secret: 'Enter the API key.' } });
    const changing = checkDestination('brevo', { listId: '7', consentField: 'newsletter' }, true, publicOnly);
    assert.deepEqual(changing, { ok: true, settings: { listId: '7', consentField: 'newsletter' }, secret: null });
  });

  it('holds listmonk’s address to the outbound guard’s rules', () => {
    const refused = checkDestination(
      'listmonk',
      { url: 'http://10.0.0.5', username: 'api', listId: '1', consentField: 'n', secret: 't' },
      false,
      () => 'must not point at a private address',
    );
    assert.deepEqual(refused, { ok: false, problems: { url: 'The address must not point at a private address.' } });
    const credentials = checkDestination(
      'listmonk',
      { url: 'https://u:p@lists.example.com', username: 'api', listId: '1', consentField: 'n', secret: 't' },
      false,
      publicOnly,
    );
    assert.deepEqual(credentials, { ok: false, problems: { url: 'The address must not carry a user name or password.' } });
  });

  it('reads a consent checkbox: absent, empty, 0, false, no, off and n are not ticked', () => {
    for (const value of [undefined, null, '', ' ', '0', 'false', 'No', 'OFF', 'n', false, 0, []]) assert.equal(consentGiven(value), false, String(value));
    for (const value of ['on', 'yes', 'true', '1', 'I agree', true, 1, ['yes']]) assert.equal(consentGiven(value), true, String(value));
  });

  it('maps fields: renamed, left out, or by their own name', () => {
    const fields = new Map<string, string>([
      ['name', 'Ada'],
      ['email', 'ada@example.com'],
      ['phone', '555'],
    ]);
    const mapping = [
      { field: 'name', to: 'Full name' },
      { field: 'phone', to: '' },
    ];
    assert.deepEqual(mappedFields(fields, mapping, 'same-name'), [
      ['Full name', 'Ada'],
      ['email', 'ada@example.com'],
    ]);
    assert.deepEqual(mappedFields(fields, mapping, 'not-sent'), [['Full name', 'Ada']]);
  });

  it('turns fields into cells: dotted names, lists joined, files as links', () => {
    const cells = fieldCells({
      name: 'Ada',
      age: 36,
      tags: ['a', 'b'],
      address: { city: 'London' },
      cv: { name: 'cv.pdf', type: 'application/pdf', size: 3, url: 'https://x/cv' },
      empty: null,
      items: [{ sku: 1 }],
    });
    assert.deepEqual(Object.fromEntries(cells), {
      name: 'Ada',
      age: 36,
      tags: 'a, b',
      'address.city': 'London',
      cv: 'https://x/cv',
      empty: '',
      'items[0].sku': 1,
    });
  });

  it('names columns as Google Sheets does', () => {
    assert.deepEqual([0, 1, 25, 26, 27, 51, 52, 701, 702].map(columnLetters), ['A', 'B', 'Z', 'AA', 'AB', 'AZ', 'BA', 'ZZ', 'AAA']);
  });

  it('signs the service account’s JWT with RS256, for one hour, with the Sheets scope', () => {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const jwt = serviceAccountAssertion(
      { client_email: 'w@p.iam.gserviceaccount.com', private_key: pem, private_key_id: 'k1' },
      'https://oauth2.googleapis.com/token',
      1_700_000_000_000,
    );
    const [header, claims, signature] = jwt.split('.');
    assert.deepEqual(JSON.parse(Buffer.from(header!, 'base64url').toString()), { alg: 'RS256', typ: 'JWT', kid: 'k1' });
    assert.deepEqual(JSON.parse(Buffer.from(claims!, 'base64url').toString()), {
      iss: 'w@p.iam.gserviceaccount.com',
      scope: 'https://www.googleapis.com/auth/spreadsheets',
      aud: 'https://oauth2.googleapis.com/token',
      iat: 1_700_000_000,
      exp: 1_700_003_600,
    });
    assert.equal(createVerify('RSA-SHA256').update(`${header}.${claims}`).verify(publicKey, Buffer.from(signature!, 'base64url')), true);
  });
});
