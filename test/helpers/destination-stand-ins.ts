// Stand-ins for the destinations' services (issue 42, item 4) on one loopback port, each answering
// as its documented API does: the request's method, path, headers and body are checked as the
// service checks them, and the answer is its success, or its own error shapes (401, 404, 422, 400),
// or what `next` asks for (a 429 with Retry-After, a 5xx).
import { createVerify, generateKeyPairSync } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface StandInRequest {
  service: 'airtable' | 'notion' | 'google' | 'brevo' | 'listmonk' | 'mailchimp';
  method: string;
  /** The path and query as sent. */
  path: string;
  headers: IncomingMessage['headers'];
  /** Parsed JSON, or the form fields (Google's token endpoint), or the text. */
  body: any;
}

export interface StandInAnswer {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export const AIRTABLE_TOKEN = 'patAbCdEfGh123456.0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef';
export const AIRTABLE_BASE = 'appABCDEFGHIJ1234';
export const NOTION_TOKEN = 'ntn_standIn0123456789abcdefghijABCDEFGHIJ';
export const NOTION_DATABASE = '0123456789abcdef0123456789abcdef';
export const BREVO_KEY = 'xkeysib-0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef-AbCdEfGhIjKlMnOp';
export const LISTMONK_USER = 'formgate';
export const LISTMONK_TOKEN = 'listmonkStandInToken0123456789';
export const MAILCHIMP_KEY = '0123456789abcdef0123456789abcdef-us21';
export const SPREADSHEET_ID = '1AbCdEfGhIjKlMnOpQrStUvWxYz0123456789';

export interface DestinationStandIns {
  /** `http://127.0.0.1:PORT` */
  url: string;
  /** The variables that point Formgate at the stand-ins (startApp's env). */
  env: Record<string, string>;
  /** What listmonk's destination is given as its address (the owner's own server). */
  listmonkUrl: string;
  requests: StandInRequest[];
  /** Answers given, in order, to the next requests to each service (instead of the usual). */
  next: Partial<Record<StandInRequest['service'], StandInAnswer[]>>;
  /** Airtable: the fields of each table (name → its field names); a field not among them is refused (422). */
  airtableTables: Record<string, string[]>;
  /** Notion: the database's properties, name → type. */
  notionProperties: Record<string, string>;
  /** Google: each tab's rows (the first is the header row). */
  sheets: Record<string, string[][]>;
  /** The service account's key file, as Google gives it. */
  serviceAccountJson: string;
  serviceAccountEmail: string;
  /** Access tokens Google gave out. */
  tokensIssued: number;
  /** Newsletter lists: the addresses on each (by service and list). */
  members: Record<string, Set<string>>;
  close(): Promise<void>;
}

function json(body: unknown): string {
  return JSON.stringify(body);
}

/** Starts the stand-ins; every service under its own path prefix. */
export async function startDestinationStandIns(): Promise<DestinationStandIns> {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const serviceAccountEmail = 'formgate-writer@stand-in-project.iam.gserviceaccount.com';
  const serviceAccountJson = JSON.stringify({
    type: 'service_account',
    project_id: 'stand-in-project',
    private_key_id: 'abc123',
    private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    client_email: serviceAccountEmail,
    client_id: '1234567890',
    auth_uri: 'https://accounts.google.com/o/oauth2/auth',
    token_uri: 'https://oauth2.googleapis.com/token',
  });
  const accessTokens = new Set<string>();
  const standIns: DestinationStandIns = {
    url: '',
    env: {},
    listmonkUrl: '',
    requests: [],
    next: {},
    airtableTables: { Leads: ['name', 'email', 'message'], tblLeads0123456789: ['name', 'email', 'message'] },
    notionProperties: { Name: 'title', email: 'email' },
    sheets: { Sheet1: [['name', 'email']] },
    serviceAccountJson,
    serviceAccountEmail,
    tokensIssued: 0,
    members: {},
    close,
  };
  let nextId = 1;
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const path = request.url ?? '';
      const method = request.method ?? '';
      const service = (path.split('/')[1] ?? '') as StandInRequest['service'];
      let body: any = raw;
      if ((request.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')) body = Object.fromEntries(new URLSearchParams(raw));
      else
        try {
          body = raw === '' ? null : JSON.parse(raw);
        } catch {
          body = raw;
        }
      standIns.requests.push({ service, method, path, headers: request.headers, body });
      const send = (status: number, answer?: unknown, headers: Record<string, string> = {}) =>
        void response
          .writeHead(status, answer === undefined ? headers : { 'content-type': 'application/json; charset=utf-8', ...headers })
          .end(answer === undefined ? '' : typeof answer === 'string' ? answer : json(answer));
      const planned = standIns.next[service]?.shift();
      if (planned) return send(planned.status, planned.body, planned.headers);
      const rest = path.slice(service.length + 1);
      const auth = request.headers.authorization ?? '';
      switch (service) {
        case 'airtable':
          return airtable(method, rest, auth, body, send);
        case 'notion':
          return notion(method, rest, auth, request.headers['notion-version'], body, send);
        case 'google':
          return google(method, rest, auth, body, send);
        case 'brevo':
          return brevo(method, rest, request.headers['api-key'], body, send);
        case 'listmonk':
          return listmonk(method, rest, auth, body, send);
        case 'mailchimp':
          return mailchimp(method, rest, auth, body, send);
        default:
          return send(404, { error: 'no such service' });
      }
    });
  });

  type Send = (status: number, answer?: unknown, headers?: Record<string, string>) => void;

  // https://airtable.com/developers/web/api/create-records
  function airtable(method: string, rest: string, auth: string, body: any, send: Send) {
    if (auth !== `Bearer ${AIRTABLE_TOKEN}`) return send(401, { error: { type: 'AUTHENTICATION_REQUIRED', message: 'Authentication required' } });
    const match = /^\/v0\/([^/]+)\/([^/?]+)$/.exec(rest);
    if (method !== 'POST' || !match) return send(404, { error: 'NOT_FOUND' });
    if (decodeURIComponent(match[1]!) !== AIRTABLE_BASE)
      return send(403, {
        error: {
          type: 'INVALID_PERMISSIONS_OR_MODEL_NOT_FOUND',
          message:
            'Invalid permissions, or the requested model was not found. Check that both your user and your token have the required permissions, and that the model names and/or ids are correct.',
        },
      });
    const table = decodeURIComponent(match[2]!);
    const fields = standIns.airtableTables[table];
    if (!fields) return send(404, { error: { type: 'TABLE_NOT_FOUND', message: `Could not find table ${table} in application ${AIRTABLE_BASE}` } });
    if (!Array.isArray(body?.records) || body.records.length === 0 || body.records.length > 10)
      return send(422, { error: { type: 'INVALID_REQUEST_MISSING_FIELDS', message: 'Could not find field "records" in the request body' } });
    for (const record of body.records) {
      for (const name of Object.keys(record.fields ?? {}))
        if (!fields.includes(name)) return send(422, { error: { type: 'UNKNOWN_FIELD_NAME', message: `Unknown field name: "${name}"` } });
    }
    return send(200, {
      records: body.records.map((record: { fields: unknown }) => ({
        id: `rec${String(nextId++).padStart(14, '0')}`,
        createdTime: new Date().toISOString(),
        fields: record.fields,
      })),
    });
  }

  // https://developers.notion.com/reference/retrieve-a-database, /update-a-database, /post-page
  function notion(method: string, rest: string, auth: string, version: string | string[] | undefined, body: any, send: Send) {
    const error = (status: number, code: string, message: string) => send(status, { object: 'error', status, code, message });
    if (!auth.startsWith('Bearer ')) return error(401, 'unauthorized', 'API token is invalid.');
    if (auth !== `Bearer ${NOTION_TOKEN}`) return error(401, 'unauthorized', 'API token is invalid.');
    if (version !== '2022-06-28') return error(400, 'missing_version', 'Notion-Version header failed validation: Notion-Version header should be defined.');
    const dashed = `${NOTION_DATABASE.slice(0, 8)}-${NOTION_DATABASE.slice(8, 12)}-${NOTION_DATABASE.slice(12, 16)}-${NOTION_DATABASE.slice(16, 20)}-${NOTION_DATABASE.slice(20)}`;
    const database = () => ({
      object: 'database',
      id: dashed,
      title: [{ type: 'text', plain_text: 'Leads' }],
      properties: Object.fromEntries(Object.entries(standIns.notionProperties).map(([name, type]) => [name, { id: name.slice(0, 4), name, type, [type]: {} }])),
    });
    const databaseMatch = /^\/v1\/databases\/([^/?]+)$/.exec(rest);
    if (databaseMatch) {
      if (databaseMatch[1]!.replace(/-/g, '') !== NOTION_DATABASE)
        return error(
          404,
          'object_not_found',
          `Could not find database with ID: ${databaseMatch[1]}. Make sure the relevant pages and databases are shared with your integration.`,
        );
      if (method === 'GET') return send(200, database());
      if (method === 'PATCH') {
        for (const [name, schema] of Object.entries((body?.properties ?? {}) as Record<string, Record<string, unknown>>)) {
          const type = Object.keys(schema)[0];
          if (!type) return error(400, 'validation_error', `body failed validation: body.properties.${name} should be defined.`);
          standIns.notionProperties[name] = type;
        }
        return send(200, database());
      }
    }
    if (rest === '/v1/pages' && method === 'POST') {
      if (body?.parent?.database_id?.replace(/-/g, '') !== NOTION_DATABASE) return error(404, 'object_not_found', 'Could not find database.');
      let titles = 0;
      for (const [name, value] of Object.entries((body.properties ?? {}) as Record<string, Record<string, unknown>>)) {
        const type = standIns.notionProperties[name];
        if (!type) return error(400, 'validation_error', `${name} is not a property that exists.`);
        if (!(type in value)) return error(400, 'validation_error', `${name} is expected to be ${type}.`);
        if (type === 'title') titles++;
      }
      if (titles !== 1) return error(400, 'validation_error', 'Title is not provided');
      return send(200, { object: 'page', id: `page-${nextId++}`, properties: body.properties });
    }
    return error(400, 'invalid_request_url', 'Invalid request URL.');
  }

  // https://developers.google.com/identity/protocols/oauth2/service-account#httprest, sheets/api/reference/rest/v4/spreadsheets.values
  function google(method: string, rest: string, auth: string, body: any, send: Send) {
    if (rest === '/token') {
      if (method !== 'POST' || body?.grant_type !== 'urn:ietf:params:oauth:grant-type:jwt-bearer')
        return send(400, { error: 'unsupported_grant_type', error_description: 'Invalid grant_type: ' });
      const [header, claims, signature] = String(body.assertion ?? '').split('.');
      const verified =
        header && claims && signature ? createVerify('RSA-SHA256').update(`${header}.${claims}`).verify(publicKey, Buffer.from(signature, 'base64url')) : false;
      if (!verified) return send(400, { error: 'invalid_grant', error_description: 'Invalid JWT Signature.' });
      const parsed = JSON.parse(Buffer.from(claims!, 'base64url').toString('utf8'));
      const now = Math.floor(Date.now() / 1000);
      if (
        parsed.iss !== serviceAccountEmail ||
        parsed.aud !== `${standIns.url}/google/token` ||
        parsed.scope !== 'https://www.googleapis.com/auth/spreadsheets'
      )
        return send(400, {
          error: 'invalid_grant',
          error_description: 'Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe.',
        });
      if (parsed.exp - parsed.iat > 3600 || Math.abs(parsed.iat - now) > 300)
        return send(400, { error: 'invalid_grant', error_description: 'Invalid JWT: Token must be a short-lived token.' });
      const token = `ya29.standin-${nextId++}`;
      accessTokens.add(token);
      standIns.tokensIssued++;
      return send(200, { access_token: token, expires_in: 3599, token_type: 'Bearer' });
    }
    const gError = (status: number, message: string, state: string) => send(status, { error: { code: status, message, status: state } });
    if (!accessTokens.has(auth.replace(/^Bearer /, '')))
      return gError(
        401,
        'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.',
        'UNAUTHENTICATED',
      );
    const url = new URL(`http://x${rest}`);
    const match = /^\/v4\/spreadsheets\/([^/]+)\/values\/([^/]+)$/.exec(url.pathname);
    if (!match) return gError(404, 'Requested entity was not found.', 'NOT_FOUND');
    if (match[1] !== SPREADSHEET_ID) return gError(403, 'The caller does not have permission', 'PERMISSION_DENIED');
    let range = decodeURIComponent(match[2]!);
    const append = range.endsWith(':append');
    if (append) range = range.slice(0, -':append'.length);
    const rangeMatch = /^'([^']+)'!(.+)$/.exec(range);
    const sheet = rangeMatch ? standIns.sheets[rangeMatch[1]!] : undefined;
    if (!rangeMatch || !sheet) return gError(400, `Unable to parse range: ${range}`, 'INVALID_ARGUMENT');
    const cells = rangeMatch[2]!;
    if (method === 'GET') {
      if (cells !== '1:1') return gError(400, 'the stand-in reads only the header row', 'INVALID_ARGUMENT');
      const header = sheet[0] ?? [];
      return send(200, { range: `${rangeMatch[1]}!A1:Z1`, majorDimension: 'ROWS', ...(header.length ? { values: [header] } : {}) });
    }
    if (url.searchParams.get('valueInputOption') === null) return gError(400, "'valueInputOption' is required but not specified", 'INVALID_ARGUMENT');
    if (method === 'PUT' && !append) {
      const put = /^([A-Z]+)1:([A-Z]+)1$/.exec(cells);
      if (!put || body?.range !== range || !Array.isArray(body?.values)) return gError(400, 'Invalid values[0]', 'INVALID_ARGUMENT');
      const start = columnIndex(put[1]!);
      const row = sheet[0] ?? [];
      body.values[0].forEach((value: string, i: number) => {
        row[start + i] = value;
      });
      sheet[0] = row;
      return send(200, {
        spreadsheetId: SPREADSHEET_ID,
        updatedRange: `${rangeMatch[1]}!${cells}`,
        updatedRows: 1,
        updatedColumns: body.values[0].length,
        updatedCells: body.values[0].length,
      });
    }
    if (method === 'POST' && append) {
      if (url.searchParams.get('insertDataOption') !== 'INSERT_ROWS' || !Array.isArray(body?.values)) return gError(400, 'Invalid data', 'INVALID_ARGUMENT');
      for (const row of body.values) sheet.push(row.map(String));
      const at = sheet.length;
      return send(200, {
        spreadsheetId: SPREADSHEET_ID,
        tableRange: `${rangeMatch[1]}!A1:C${at - 1}`,
        updates: { spreadsheetId: SPREADSHEET_ID, updatedRange: `${rangeMatch[1]}!A${at}:C${at}`, updatedRows: 1, updatedColumns: 3, updatedCells: 3 },
      });
    }
    return gError(404, 'Requested entity was not found.', 'NOT_FOUND');
  }

  const listOf = (service: string, list: string) => {
    const key = `${service}:${list}`;
    standIns.members[key] ??= new Set();
    return standIns.members[key]!;
  };

  // https://developers.brevo.com/reference/createcontact, /getlist
  function brevo(method: string, rest: string, key: string | string[] | undefined, body: any, send: Send) {
    if (key !== BREVO_KEY) return send(401, { code: 'unauthorized', message: 'Key not found' });
    const list = /^\/v3\/contacts\/lists\/(\d+)$/.exec(rest);
    if (list && method === 'GET') {
      if (list[1] !== '7') return send(404, { code: 'document_not_found', message: 'List ID does not exist' });
      return send(200, { id: 7, name: 'Newsletter', totalBlacklisted: 0, totalSubscribers: 3, uniqueSubscribers: 3, folderId: 1 });
    }
    if (rest !== '/v3/contacts' || method !== 'POST') return send(404, { code: 'not_found', message: 'Invalid route' });
    if (typeof body?.email !== 'string') return send(400, { code: 'missing_parameter', message: 'email is missing' });
    if (!Array.isArray(body.listIds) || body.listIds.some((id: unknown) => typeof id !== 'number'))
      return send(400, { code: 'invalid_parameter', message: 'listIds should be an array of integers' });
    const members = listOf('brevo', String(body.listIds[0]));
    if (members.has(body.email)) {
      if (body.updateEnabled === true) return send(204);
      return send(400, { code: 'duplicate_parameter', message: 'Contact already exist' });
    }
    members.add(body.email);
    return send(201, { id: nextId++ });
  }

  // https://listmonk.app/docs/apis/subscribers/#post-apisubscribers
  function listmonk(method: string, rest: string, auth: string, body: any, send: Send) {
    if (auth !== `Basic ${Buffer.from(`${LISTMONK_USER}:${LISTMONK_TOKEN}`).toString('base64')}`) return send(403, { message: 'Invalid API credentials' });
    const list = /^\/api\/lists\/(\d+)$/.exec(rest);
    if (list && method === 'GET') {
      if (list[1] !== '3') return send(400, { message: 'List not found' });
      return send(200, { data: { id: 3, name: 'Customers', type: 'public', optin: 'double', subscriber_count: 12 } });
    }
    if (rest !== '/api/subscribers' || method !== 'POST') return send(404, { message: 'Unknown route' });
    if (typeof body?.email !== 'string' || typeof body?.name !== 'string' || !body.name) return send(400, { message: 'invalid name' });
    if (!['enabled', 'blocklisted'].includes(body.status)) return send(400, { message: 'invalid status' });
    const members = listOf('listmonk', String(body.lists?.[0]));
    if (members.has(body.email)) return send(409, { message: 'E-mail already exists.' });
    members.add(body.email);
    return send(200, { data: { id: nextId++, uuid: 'b1c2', email: body.email, name: body.name, attribs: body.attribs ?? {}, status: 'enabled', lists: [] } });
  }

  // https://mailchimp.com/developer/marketing/api/list-members/add-member-to-list/
  function mailchimp(method: string, rest: string, auth: string, body: any, send: Send) {
    const problem = (status: number, title: string, detail: string) =>
      send(
        status,
        { type: 'https://mailchimp.com/developer/marketing/docs/errors/', title, status, detail, instance: 'abc' },
        { 'content-type': 'application/problem+json; charset=utf-8' },
      );
    const [, password] = Buffer.from(auth.replace(/^Basic /, ''), 'base64')
      .toString('utf8')
      .split(':');
    if (!auth.startsWith('Basic ') || password !== MAILCHIMP_KEY)
      return problem(401, 'API Key Invalid', 'Your API key may be invalid, or you’ve attempted to access the wrong datacenter.');
    const list = /^\/3\.0\/lists\/([^/]+)(\/members)?$/.exec(rest);
    if (list?.[1] !== 'a1b2c3d4e5') return problem(404, 'Resource Not Found', 'The requested resource could not be found.');
    if (!list?.[2] && method === 'GET') return send(200, { id: 'a1b2c3d4e5', name: 'Friends', stats: { member_count: 5 } });
    if (method !== 'POST') return problem(405, 'Method Not Allowed', 'The requested method and resource are not compatible.');
    if (typeof body?.email_address !== 'string' || !['subscribed', 'pending', 'unsubscribed', 'cleaned', 'transactional'].includes(body.status))
      return problem(400, 'Invalid Resource', 'The resource submitted could not be validated.');
    const members = listOf('mailchimp', list[1]!);
    if (members.has(body.email_address))
      return problem(400, 'Member Exists', `${body.email_address} is already a list member. Use PUT to insert or update list members.`);
    members.add(body.email_address);
    return send(200, { id: 'md5hash', email_address: body.email_address, status: body.status, list_id: list[1] });
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  standIns.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  standIns.listmonkUrl = `${standIns.url}/listmonk`;
  standIns.env = {
    airtableApiUrl: `${standIns.url}/airtable`,
    notionApiUrl: `${standIns.url}/notion`,
    googleSheetsApiUrl: `${standIns.url}/google`,
    googleOauthTokenUrl: `${standIns.url}/google/token`,
    brevoApiUrl: `${standIns.url}/brevo`,
    mailchimpApiUrl: `${standIns.url}/mailchimp`,
  };
  function close(): Promise<void> {
    return new Promise((resolve) => server.close(() => resolve()));
  }
  return standIns;
}

function columnIndex(letters: string): number {
  let n = 0;
  for (const letter of letters) n = n * 26 + (letter.charCodeAt(0) - 64);
  return n - 1;
}
