// The destinations' services as Formgate calls them (issue 42, item 4; docs/destinations.md): one
// record per submission in Airtable, Notion or Google Sheets, or a newsletter sign-up at Brevo,
// listmonk or Mailchimp. Each answer is read as a DeliveryError the worker understands: a 429 (with
// its Retry-After), a 408 or a 5xx is tried again on the webhook's schedule; any other 4xx is the
// owner's to fix (a token revoked, a table renamed) and fails at once, the service's words kept.
// NOTE: no message thrown here names a token or key.
import { createHash, createSign } from 'node:crypto';
import type { DestinationApis } from '../../config/config.js';
import { DeliveryError } from '../../domain/delivery-error.js';
import {
  consentGiven,
  DESTINATION_NAMES,
  type DestinationKind,
  type DestinationSettings,
  mailchimpDataCentre,
  mappedFields,
  type ServiceAccountKey,
} from '../../domain/destinations.js';
import { nameOf, whoOf } from '../../domain/submission-summary.js';
import type { OutboundGuard } from '../../net/outbound-guard.js';
import { retryAfterOf } from '../../net/retry-after.js';
import type { DeliveryReceipt } from './channel.js';

export interface DestinationApiOptions {
  /** The gate of owner-chosen addresses (listmonk's server); the services' own APIs are the operator's (FORMGATE_*_API_URL). */
  outbound: OutboundGuard;
  apis: DestinationApis;
  timeoutMs?: number;
}

/** A destination as a try reads it: its service, settings and secret now. */
export interface LiveDestination {
  id: string;
  kind: DestinationKind;
  settings: DestinationSettings;
  secret: string;
}

/** What a try sends: the submission's fields (files as links) and its submitter's address. */
export interface DestinationSubmission {
  data: Record<string, unknown>;
  /** The submitter's address (domain/submitter-address.ts), or null. */
  email: string | null;
}

/** What a test of a newsletter destination does instead of signing anyone up: it reads the list. */
export type DestinationCall = 'deliver' | 'check-list';

const TIMEOUT_MS = 15_000;
/** Airtable asks a client over its rate to wait 30 seconds, and sends no Retry-After. */
const AIRTABLE_WAIT_MS = 30_000;

interface Answer {
  status: number;
  body: string;
  json: Record<string, unknown> | null;
  retryAfter: string | null;
}

interface Request {
  method: 'GET' | 'POST' | 'PATCH' | 'PUT';
  url: string;
  headers: Record<string, string>;
  body?: unknown;
  /** An owner's own server (listmonk): held to the outbound guard's address rules like a webhook. */
  ownerUrl?: boolean;
  /** A form body (Google's token endpoint) rather than JSON. */
  form?: Record<string, string>;
}

async function call(kind: DestinationKind, request: Request, options: DestinationApiOptions): Promise<Answer> {
  const service = DESTINATION_NAMES[kind];
  const body = request.form ? new URLSearchParams(request.form).toString() : request.body === undefined ? '' : JSON.stringify(request.body);
  const headers = {
    accept: 'application/json',
    'user-agent': 'Formgate-Destinations/1',
    ...(request.method === 'GET' ? {} : { 'content-type': request.form ? 'application/x-www-form-urlencoded' : 'application/json; charset=utf-8' }),
    ...request.headers,
  };
  const limits = { timeoutMs: options.timeoutMs ?? TIMEOUT_MS, maxResponseBytes: 256 * 1024, method: request.method };
  const sending = request.ownerUrl
    ? options.outbound.post(request.url, body, headers, limits)
    : options.outbound.postToOperatorEndpoint(request.url, body, headers, limits);
  const answer = await sending.catch((err: unknown) => {
    if (err instanceof DeliveryError) throw new DeliveryError(`${service}: ${err.message}`, { permanent: err.permanent, cause: err });
    throw err;
  });
  let json: Record<string, unknown> | null = null;
  try {
    const parsed = JSON.parse(answer.body) as unknown;
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) json = parsed as Record<string, unknown>;
  } catch {
    json = null;
  }
  return { ...answer, json };
}

/** The service's own words from an error answer, one short line. */
function saidIn(answer: Answer): string {
  const json = answer.json;
  let text = answer.body;
  if (json) {
    const error = json.error as unknown;
    const nested = error !== null && typeof error === 'object' ? (error as Record<string, unknown>) : null;
    const words = [
      nested?.message,
      nested?.type,
      json.message,
      json.detail,
      json.title,
      json.error_description,
      typeof error === 'string' ? error : undefined,
      json.code,
    ].find((value) => typeof value === 'string' && value.trim() !== '');
    text = typeof words === 'string' ? words : '';
  }
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
}

/** Throws the DeliveryError an answer means, unless it is a success (2xx). */
function throwUnlessOk(kind: DestinationKind, answer: Answer, doing: string): void {
  const { status } = answer;
  if (status >= 200 && status < 300) return;
  const service = DESTINATION_NAMES[kind];
  const said = saidIn(answer);
  const reason = said ? `: ${said}` : '';
  if (status === 429) {
    const retryAfterMs = retryAfterOf(answer.retryAfter) ?? (kind === 'airtable' ? AIRTABLE_WAIT_MS : undefined);
    const wait = retryAfterMs === undefined ? '' : ` (Retry-After: asked to wait ${Math.ceil(retryAfterMs / 1000)} s)`;
    throw new DeliveryError(`${service} answered 429, too many requests${wait}${reason}`, { permanent: false, statusCode: status, retryAfterMs });
  }
  if (status >= 300 && status < 400)
    throw new DeliveryError(`${service} answered ${status} (a redirect, not followed) ${doing}`, { permanent: true, statusCode: status });
  const transient = status === 408 || status >= 500 || status < 200;
  if (transient) {
    const retryAfterMs = retryAfterOf(answer.retryAfter);
    throw new DeliveryError(`${service} could not take the request ${doing} (${status})${reason}`, { permanent: false, statusCode: status, retryAfterMs });
  }
  const hint =
    status === 401
      ? ': check the token or key stored for it on the form’s Settings page'
      : status === 403 || status === 404
        ? ': check that the token may reach it and that it still exists'
        : '';
  throw new DeliveryError(`${service} refused the request ${doing} (${status})${reason}${hint}`, { permanent: true, statusCode: status });
}

const base = (url: string) => url.replace(/\/+$/, '');

/** A submission's fields as cells, name → text or number: nested objects by dotted path, lists joined by `, `, files as their links. */
export function fieldCells(data: Record<string, unknown>): Map<string, string | number> {
  const cells = new Map<string, string | number>();
  const walk = (name: string, value: unknown) => {
    if (value === null || value === undefined) return void cells.set(name, '');
    if (typeof value === 'number') return void cells.set(name, value);
    if (typeof value !== 'object') return void cells.set(name, String(value));
    if (Array.isArray(value)) {
      if (value.every((item) => item === null || typeof item !== 'object' || isFile(item)))
        return void cells.set(name, value.map((item) => (isFile(item) ? item.url : String(item ?? ''))).join(', '));
      for (const [i, item] of value.entries()) walk(`${name}[${i}]`, item);
      return;
    }
    if (isFile(value)) return void cells.set(name, value.url);
    for (const [key, inner] of Object.entries(value)) walk(`${name}.${key}`, inner);
  };
  for (const [key, value] of Object.entries(data)) walk(key, value);
  return cells;
}

function isFile(value: unknown): value is { url: string } {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && typeof (value as { url?: unknown }).url === 'string' && 'size' in value;
}

/**
 * Sends one submission to one destination (or, with `check-list`, only reads a newsletter's list,
 * as its test does) and says how it went: a receipt, or a DeliveryError.
 */
export async function sendToDestination(
  destination: LiveDestination,
  submission: DestinationSubmission,
  options: DestinationApiOptions,
  what: DestinationCall = 'deliver',
): Promise<DeliveryReceipt> {
  switch (destination.kind) {
    case 'airtable':
      return airtable(destination, submission, options);
    case 'notion':
      return notion(destination, submission, options);
    case 'google-sheets':
      return googleSheets(destination, submission, options);
    default:
      return what === 'check-list' ? checkList(destination, options) : newsletter(destination, submission, options);
  }
}

/** Each name as the service already spells it, when it has it told apart only by case (`email` → `Email`). */
function matchedNames<V>(fields: [string, V][], existing: readonly string[]): [string, V][] {
  const byLower = new Map<string, string>();
  for (const name of existing) if (!byLower.has(name.toLowerCase())) byLower.set(name.toLowerCase(), name);
  return fields.map(([name, value]) => [existing.includes(name) ? name : (byLower.get(name.toLowerCase()) ?? name), value]);
}

// ---------------------------------------------------------------- Airtable

async function airtable(destination: LiveDestination, submission: DestinationSubmission, options: DestinationApiOptions): Promise<DeliveryReceipt> {
  const { baseId, table, mapping } = destination.settings;
  if (!baseId || !table) throw new DeliveryError('the Airtable destination has no base or table: set them on the form’s Settings page', { permanent: true });
  const url = `${base(options.apis.airtable)}/v0/${encodeURIComponent(baseId)}/${encodeURIComponent(table)}`;
  const fields = Object.fromEntries(mappedFields(fieldCells(submission.data), mapping, 'same-name'));
  const answer = await call(
    'airtable',
    { method: 'POST', url, headers: { authorization: `Bearer ${destination.secret}` }, body: { records: [{ fields }], typecast: true } },
    options,
  );
  throwUnlessOk('airtable', answer, `to add a record to table “${table}”`);
  const id = ((answer.json?.records as { id?: unknown }[] | undefined)?.[0]?.id as string | undefined) ?? null;
  return { statusCode: answer.status, target: url, ...(id ? { response: `record ${id}` } : {}) };
}

// ---------------------------------------------------------------- Notion

const NOTION_VERSION = '2022-06-28';
/** Notion takes at most 2,000 characters per text object, and 100 objects per property. */
const NOTION_TEXT_MAX = 2000;

function notionText(value: string): { type: 'text'; text: { content: string } }[] {
  const parts: { type: 'text'; text: { content: string } }[] = [];
  for (let at = 0; at < value.length && parts.length < 100; at += NOTION_TEXT_MAX)
    parts.push({ type: 'text', text: { content: value.slice(at, at + NOTION_TEXT_MAX) } });
  return parts;
}

/** A value as a Notion property of the given type; null when that type cannot hold it (a formula, a relation). */
function notionValue(type: string, value: string | number): unknown {
  const text = String(value);
  switch (type) {
    case 'title':
      return { title: notionText(text) };
    case 'rich_text':
      return { rich_text: notionText(text) };
    case 'number': {
      const number = typeof value === 'number' ? value : Number(text.trim());
      return text.trim() === '' || Number.isNaN(number) ? { number: null } : { number };
    }
    case 'email':
      return { email: text || null };
    case 'url':
      return { url: text || null };
    case 'phone_number':
      return { phone_number: text || null };
    case 'checkbox':
      return { checkbox: consentGiven(value) };
    case 'select':
      return { select: text ? { name: text.replace(/,/g, ' ').slice(0, 100) } : null };
    case 'multi_select':
      return {
        multi_select: text
          .split(',')
          .map((name) => name.trim())
          .filter(Boolean)
          .map((name) => ({ name: name.slice(0, 100) })),
      };
    case 'date':
      return Number.isNaN(Date.parse(text)) ? null : { date: { start: text } };
    default:
      return null;
  }
}

async function notion(destination: LiveDestination, submission: DestinationSubmission, options: DestinationApiOptions): Promise<DeliveryReceipt> {
  const { databaseId, mapping } = destination.settings;
  if (!databaseId) throw new DeliveryError('the Notion destination has no database: set it on the form’s Settings page', { permanent: true });
  const api = base(options.apis.notion);
  const headers = { authorization: `Bearer ${destination.secret}`, 'notion-version': NOTION_VERSION };
  const databaseUrl = `${api}/v1/databases/${encodeURIComponent(databaseId)}`;
  const read = await call('notion', { method: 'GET', url: databaseUrl, headers }, options);
  throwUnlessOk('notion', read, 'to read the database (is it shared with the integration? Its ••• menu, Connections)');
  const properties = new Map<string, string>();
  for (const [name, property] of Object.entries((read.json?.properties as Record<string, { type?: unknown }> | undefined) ?? {})) {
    if (typeof property?.type === 'string') properties.set(name, property.type);
  }
  const titleName = [...properties].find(([, type]) => type === 'title')?.[0] ?? 'Name';
  const fields = matchedNames(mappedFields(fieldCells(submission.data), mapping, 'same-name'), [...properties.keys()]);
  // properties made for new fields: a text property for each field the database has no property for yet
  const missing = fields.map(([name]) => name).filter((name) => !properties.has(name) && name !== titleName);
  if (missing.length > 0) {
    const added = await call(
      'notion',
      { method: 'PATCH', url: databaseUrl, headers, body: { properties: Object.fromEntries(missing.map((name) => [name, { rich_text: {} }])) } },
      options,
    );
    throwUnlessOk('notion', added, `to add the properties ${missing.map((name) => `“${name}”`).join(', ')} to the database`);
    for (const name of missing) properties.set(name, 'rich_text');
  }
  const values: Record<string, unknown> = {};
  for (const [name, value] of fields) {
    const property = notionValue(properties.get(name) ?? 'rich_text', value);
    if (property !== null) values[name] = property;
  }
  // the page's title: a field mapped to it, else who sent it, else the first field
  if (!(titleName in values)) {
    const who = whoOf(submission.data) ?? String(fields[0]?.[1] ?? 'Submission');
    values[titleName] = { title: notionText(who) };
  }
  const pagesUrl = `${api}/v1/pages`;
  const answer = await call('notion', { method: 'POST', url: pagesUrl, headers, body: { parent: { database_id: databaseId }, properties: values } }, options);
  throwUnlessOk('notion', answer, 'to add a page to the database');
  const id = typeof answer.json?.id === 'string' ? answer.json.id : null;
  return { statusCode: answer.status, target: pagesUrl, ...(id ? { response: `page ${id}` } : {}) };
}

// ---------------------------------------------------------------- Google Sheets

const SHEETS_SCOPE = 'https://www.googleapis.com/auth/spreadsheets';
/** A token is used until this long before it expires (Google's last an hour). */
const TOKEN_MARGIN_MS = 5 * 60_000;
const tokens = new Map<string, { token: string; expiresAt: number }>();

const base64url = (value: string | Buffer) => Buffer.from(value).toString('base64url');

/** The signed JWT a service account exchanges for an access token (RFC 7523), RS256 with its private key. */
export function serviceAccountAssertion(key: ServiceAccountKey, audience: string, now = Date.now()): string {
  const iat = Math.floor(now / 1000);
  const header = base64url(JSON.stringify({ alg: 'RS256', typ: 'JWT', ...(key.private_key_id ? { kid: key.private_key_id } : {}) }));
  const claims = base64url(JSON.stringify({ iss: key.client_email, scope: SHEETS_SCOPE, aud: audience, iat, exp: iat + 3600 }));
  const signature = createSign('RSA-SHA256').update(`${header}.${claims}`).sign(key.private_key);
  return `${header}.${claims}.${base64url(signature)}`;
}

function serviceAccountOf(secret: string): ServiceAccountKey {
  try {
    const key = JSON.parse(secret) as ServiceAccountKey;
    if (typeof key.client_email === 'string' && typeof key.private_key === 'string') return key;
  } catch {
    // below
  }
  throw new DeliveryError('the Google Sheets destination’s key is unreadable: paste the service account’s key again', { permanent: true });
}

/** An access token for the service account: kept until shortly before it expires, one per key. */
async function accessToken(key: ServiceAccountKey, options: DestinationApiOptions): Promise<string> {
  const tokenUrl = options.apis.googleOauthToken;
  const cacheKey = createHash('sha256').update(`${tokenUrl}\n${key.client_email}\n${key.private_key}`).digest('hex');
  const kept = tokens.get(cacheKey);
  if (kept && kept.expiresAt - TOKEN_MARGIN_MS > Date.now()) return kept.token;
  let assertion: string;
  try {
    assertion = serviceAccountAssertion(key, tokenUrl);
  } catch (err) {
    throw new DeliveryError(`the service account’s private key cannot sign: ${(err as Error).message}`, { permanent: true, cause: err });
  }
  const answer = await call(
    'google-sheets',
    { method: 'POST', url: tokenUrl, headers: {}, form: { grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion } },
    options,
  );
  throwUnlessOk('google-sheets', answer, 'to sign in as the service account (was its key deleted?)');
  const token = answer.json?.access_token;
  const expiresIn = Number(answer.json?.expires_in ?? 3600);
  if (typeof token !== 'string') throw new DeliveryError('Google gave no access token for the service account', { permanent: false });
  if (tokens.size > 1000) tokens.clear();
  tokens.set(cacheKey, { token, expiresAt: Date.now() + (Number.isFinite(expiresIn) ? expiresIn : 3600) * 1000 });
  return token;
}

/** Forgets the tokens kept (tests). */
export function forgetGoogleTokens(): void {
  tokens.clear();
}

/** A column's letters: 0 → A, 25 → Z, 26 → AA. */
export function columnLetters(index: number): string {
  let letters = '';
  for (let n = index + 1; n > 0; n = Math.floor((n - 1) / 26)) letters = String.fromCharCode(65 + ((n - 1) % 26)) + letters;
  return letters;
}

async function googleSheets(destination: LiveDestination, submission: DestinationSubmission, options: DestinationApiOptions): Promise<DeliveryReceipt> {
  const { spreadsheetId, mapping } = destination.settings;
  const sheet = destination.settings.sheet || 'Sheet1';
  if (!spreadsheetId) throw new DeliveryError('the Google Sheets destination has no spreadsheet: set it on the form’s Settings page', { permanent: true });
  const token = await accessToken(serviceAccountOf(destination.secret), options);
  const headers = { authorization: `Bearer ${token}` };
  const values = `${base(options.apis.googleSheets)}/v4/spreadsheets/${encodeURIComponent(spreadsheetId)}/values`;
  const range = (cells: string) => encodeURIComponent(`'${sheet}'!${cells}`);
  const read = await call('google-sheets', { method: 'GET', url: `${values}/${range('1:1')}`, headers }, options);
  throwUnlessOk('google-sheets', read, `to read the header row of “${sheet}” (is the sheet shared with the service account?)`);
  const header = (((read.json?.values as unknown[][] | undefined)?.[0] ?? []) as unknown[]).map((cell) => String(cell ?? '').trim());
  const fields = matchedNames(mappedFields(fieldCells(submission.data), mapping, 'same-name'), header);
  // a column for each new field: added to the header row first
  const added = [...new Set(fields.map(([name]) => name).filter((name) => !header.includes(name)))];
  if (added.length > 0) {
    const from = columnLetters(header.length);
    const to = columnLetters(header.length + added.length - 1);
    const cells = `${from}1:${to}1`;
    const put = await call(
      'google-sheets',
      {
        method: 'PUT',
        url: `${values}/${range(cells)}?valueInputOption=RAW`,
        headers,
        body: { range: `'${sheet}'!${cells}`, majorDimension: 'ROWS', values: [added] },
      },
      options,
    );
    throwUnlessOk('google-sheets', put, `to add the columns ${added.map((name) => `“${name}”`).join(', ')} to the header row`);
    header.push(...added);
  }
  const row: (string | number)[] = header.map(() => '');
  for (const [name, value] of fields) {
    const at = header.indexOf(name);
    row[at] = row[at] === '' ? value : `${row[at]}, ${value}`;
  }
  // RAW: a value is stored as typed, never read as a formula (=HYPERLINK(…) stays text)
  const appendUrl = `${values}/${range('A1')}:append?valueInputOption=RAW&insertDataOption=INSERT_ROWS`;
  const answer = await call('google-sheets', { method: 'POST', url: appendUrl, headers, body: { majorDimension: 'ROWS', values: [row] } }, options);
  throwUnlessOk('google-sheets', answer, `to append a row to “${sheet}”`);
  const updated = (answer.json?.updates as { updatedRange?: unknown } | undefined)?.updatedRange;
  return { statusCode: answer.status, target: `${values}/${range('A1')}:append`, ...(typeof updated === 'string' ? { response: `row ${updated}` } : {}) };
}

// ---------------------------------------------------------------- newsletters

function basicAuth(user: string, password: string): string {
  return `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
}

function mailchimpApi(destination: LiveDestination, options: DestinationApiOptions): string {
  if (options.apis.mailchimp) return base(options.apis.mailchimp);
  const dc = mailchimpDataCentre(destination.secret);
  if (!dc) throw new DeliveryError('the Mailchimp API key names no data centre (…-us21): store the key again', { permanent: true });
  return `https://${dc}.api.mailchimp.com`;
}

/** Whether an error answer says the address is on the list already: a sign-up that needs nothing more. */
function alreadyThere(kind: DestinationKind, answer: Answer): boolean {
  const said = saidIn(answer).toLowerCase();
  if (kind === 'mailchimp') return answer.status === 400 && (answer.json?.title === 'Member Exists' || said.includes('already a list member'));
  if (kind === 'brevo') return answer.status === 400 && (answer.json?.code === 'duplicate_parameter' || said.includes('already exist'));
  return answer.status === 409 || (answer.status === 400 && said.includes('already exists'));
}

async function newsletter(destination: LiveDestination, submission: DestinationSubmission, options: DestinationApiOptions): Promise<DeliveryReceipt> {
  const { kind } = destination;
  const { listId, consentField, mapping } = destination.settings;
  if (!listId || !consentField) throw new DeliveryError(`the ${DESTINATION_NAMES[kind]} destination has no list or consent field`, { permanent: true });
  const cells = fieldCells(submission.data);
  if (!consentGiven(submission.data[consentField] ?? cells.get(consentField))) return { response: 'not subscribed: consent not given' };
  if (!submission.email) return { response: 'not subscribed: the submission has no valid email address' };
  const email = submission.email;
  const extra = Object.fromEntries(mappedFields(cells, mapping, 'not-sent').map(([name, value]) => [name, value]));
  let request: Request;
  if (kind === 'brevo') {
    request = {
      method: 'POST',
      url: `${base(options.apis.brevo)}/v3/contacts`,
      headers: { 'api-key': destination.secret },
      body: { email, listIds: [Number(listId)], updateEnabled: true, ...(Object.keys(extra).length ? { attributes: extra } : {}) },
    };
  } else if (kind === 'listmonk') {
    request = {
      method: 'POST',
      url: `${base(destination.settings.url ?? '')}/api/subscribers`,
      headers: { authorization: basicAuth(destination.settings.username ?? '', destination.secret) },
      body: { email, name: nameOf(submission.data) ?? email, status: 'enabled', lists: [Number(listId)], attribs: extra },
      ownerUrl: true,
    };
  } else {
    request = {
      method: 'POST',
      url: `${mailchimpApi(destination, options)}/3.0/lists/${encodeURIComponent(listId)}/members`,
      headers: { authorization: basicAuth('formgate', destination.secret) },
      // pending: Mailchimp sends its confirmation email first (double opt-in)
      body: { email_address: email, status: 'pending', ...(Object.keys(extra).length ? { merge_fields: extra } : {}) },
    };
  }
  const answer = await call(kind, request, options);
  if (alreadyThere(kind, answer)) return { statusCode: answer.status, target: request.url, response: 'already on the list' };
  throwUnlessOk(kind, answer, `to add ${email} to list ${listId}`);
  return { statusCode: answer.status, target: request.url, response: `subscribed ${email}` };
}

/** A newsletter destination's test: the list read with the stored key (nobody is signed up). */
async function checkList(destination: LiveDestination, options: DestinationApiOptions): Promise<DeliveryReceipt> {
  const { kind } = destination;
  const listId = destination.settings.listId ?? '';
  let request: Request;
  if (kind === 'brevo')
    request = { method: 'GET', url: `${base(options.apis.brevo)}/v3/contacts/lists/${encodeURIComponent(listId)}`, headers: { 'api-key': destination.secret } };
  else if (kind === 'listmonk')
    request = {
      method: 'GET',
      url: `${base(destination.settings.url ?? '')}/api/lists/${encodeURIComponent(listId)}`,
      headers: { authorization: basicAuth(destination.settings.username ?? '', destination.secret) },
      ownerUrl: true,
    };
  else
    request = {
      method: 'GET',
      url: `${mailchimpApi(destination, options)}/3.0/lists/${encodeURIComponent(listId)}`,
      headers: { authorization: basicAuth('formgate', destination.secret) },
    };
  const answer = await call(kind, request, options);
  throwUnlessOk(kind, answer, `to read list ${listId}`);
  const json = answer.json ?? {};
  const name = (json.data as { name?: unknown } | undefined)?.name ?? json.name;
  return { statusCode: answer.status, target: request.url, response: typeof name === 'string' ? `list “${name}”` : `list ${listId}` };
}
