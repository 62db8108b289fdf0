// A form's destinations (issue 42, item 4): services each accepted submission is sent to as a
// record of their own (an Airtable record, a Notion page, a Google Sheets row) or, when a consent
// field is ticked, as a newsletter sign-up (Brevo, listmonk, Mailchimp). What the owner typed is
// checked here; jobs/channels/destinations.ts sends, services/destinations.ts stores.
import { createPrivateKey } from 'node:crypto';

export const DESTINATION_KINDS = ['airtable', 'notion', 'google-sheets', 'brevo', 'listmonk', 'mailchimp'] as const;
export type DestinationKind = (typeof DESTINATION_KINDS)[number];

/** The newsletter services: a submission is sent only when its consent field is ticked. */
export const NEWSLETTER_KINDS: readonly DestinationKind[] = ['brevo', 'listmonk', 'mailchimp'];

/** Destinations a form may hold: each one is a request (or three) per submission. */
export const DESTINATIONS_PER_FORM = 5;

/** What people call each service. */
export const DESTINATION_NAMES: Record<DestinationKind, string> = {
  airtable: 'Airtable',
  notion: 'Notion',
  'google-sheets': 'Google Sheets',
  brevo: 'Brevo',
  listmonk: 'listmonk',
  mailchimp: 'Mailchimp',
};

/** The destination's secret, as its service calls it. */
export const SECRET_NAMES: Record<DestinationKind, string> = {
  airtable: 'Personal access token',
  notion: 'Internal integration secret',
  'google-sheets': 'Service account key (JSON)',
  brevo: 'API key',
  listmonk: 'API token',
  mailchimp: 'API key',
};

export function isDestinationKind(value: unknown): value is DestinationKind {
  return typeof value === 'string' && (DESTINATION_KINDS as readonly string[]).includes(value);
}

/** One row of a field mapping: a form field and the name it is sent under (empty: not sent). */
export interface MappingEntry {
  field: string;
  to: string;
}

/** What of a destination is not secret (stored as JSON in `form_destinations.settings`). */
export interface DestinationSettings {
  /** Airtable: the base (`app…`) and the table's name or id (`tbl…`). */
  baseId?: string;
  table?: string;
  /** Notion: the database's id (32 hex digits). */
  databaseId?: string;
  /** Google Sheets: the spreadsheet's id, the tab's name, and the service account's address (no secret: the sheet is shared with it). */
  spreadsheetId?: string;
  sheet?: string;
  clientEmail?: string;
  /** Newsletters: the list (Brevo's and listmonk's number, Mailchimp's audience id) and the form field that must be ticked. */
  listId?: string;
  consentField?: string;
  /** listmonk: the owner's server and its API user. */
  url?: string;
  username?: string;
  /** Field → name in the service; a field not listed goes under its own name (records), or is not sent (newsletters). */
  mapping?: MappingEntry[];
}

/** The fields of each kind's form, secret aside, in the order shown. */
export const SETTING_FIELDS: Record<DestinationKind, readonly (keyof DestinationSettings)[]> = {
  airtable: ['baseId', 'table'],
  notion: ['databaseId'],
  'google-sheets': ['spreadsheetId', 'sheet'],
  brevo: ['listId', 'consentField'],
  listmonk: ['url', 'username', 'listId', 'consentField'],
  mailchimp: ['listId', 'consentField'],
};

/** A stored `settings` column as settings; anything malformed is left out rather than failing a page or a delivery. */
export function destinationSettingsOf(stored: unknown): DestinationSettings {
  let parsed: unknown = stored;
  try {
    if (typeof stored === 'string') parsed = JSON.parse(stored);
  } catch {
    return {};
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return {};
  const settings: DestinationSettings = {};
  const record = parsed as Record<string, unknown>;
  for (const key of ['baseId', 'table', 'databaseId', 'spreadsheetId', 'sheet', 'clientEmail', 'listId', 'consentField', 'url', 'username'] as const) {
    if (typeof record[key] === 'string') settings[key] = record[key] as string;
  }
  if (Array.isArray(record.mapping)) {
    settings.mapping = record.mapping.filter(
      (entry): entry is MappingEntry => typeof entry === 'object' && entry !== null && typeof entry.field === 'string' && typeof entry.to === 'string',
    );
  }
  return settings;
}

const AIRTABLE_BASE = /^app[A-Za-z0-9]{14}$/;
const AIRTABLE_TOKEN = /^pat[A-Za-z0-9]{10,20}\.[A-Za-z0-9]{20,80}$/;
const NOTION_TOKEN = /^(secret_|ntn_)[A-Za-z0-9]{20,80}$/;
const HEX32 = /[0-9a-f]{32}/i;
const SPREADSHEET_ID = /^[A-Za-z0-9_-]{20,100}$/;
const BREVO_KEY = /^xkeysib-[A-Za-z0-9-]{20,120}$/;
const MAILCHIMP_KEY = /^[0-9a-f]{32}-([a-z]{2,4}\d{1,3})$/;
const MAILCHIMP_LIST = /^[A-Za-z0-9]{5,20}$/;
const LIST_NUMBER = /^[1-9]\d{0,9}$/;

/** A Notion database's id from what the owner pasted (its id, dashed or not, or its page's URL), dashed as the API writes it; null if none. */
export function notionDatabaseId(value: string): string | null {
  // the last 32 hex digits of a URL's path: `notion.so/team/My-db-0123…?v=…` (the view's id follows `?v=`)
  const path = value.split('?')[0]!.replace(/-/g, '');
  const matches = path.match(new RegExp(HEX32.source, 'gi'));
  const hex = matches?.at(-1)?.toLowerCase();
  if (!hex) return null;
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** A spreadsheet's id from its id or its URL (`…/spreadsheets/d/<id>/edit`); null if none. */
export function spreadsheetIdOf(value: string): string | null {
  const fromUrl = /\/spreadsheets\/d\/([A-Za-z0-9_-]+)/.exec(value)?.[1];
  const id = fromUrl ?? value;
  return SPREADSHEET_ID.test(id) ? id : null;
}

/** Mailchimp's data centre, the key's suffix (`…-us21`): the API is at https://us21.api.mailchimp.com. */
export function mailchimpDataCentre(key: string): string | null {
  return MAILCHIMP_KEY.exec(key.trim())?.[1] ?? null;
}

/** What a Google service account's key holds that Formgate keeps: who it is and its private key. */
export interface ServiceAccountKey {
  client_email: string;
  private_key: string;
  private_key_id?: string;
}

/** The service account's key as pasted (the JSON file Google gave), or the problem with it. */
export function serviceAccountKeyOf(text: string): ServiceAccountKey | string {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return 'Paste the whole JSON key file of the service account, from { to }.';
  }
  if (json === null || typeof json !== 'object' || Array.isArray(json)) return 'Paste the whole JSON key file of the service account, from { to }.';
  const key = json as Record<string, unknown>;
  if (key.type !== 'service_account') return 'This is not a service account’s key: its "type" must be "service_account".';
  if (typeof key.client_email !== 'string' || !/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(key.client_email))
    return 'The key has no "client_email": paste the whole file Google gave you.';
  if (typeof key.private_key !== 'string' || !key.private_key.includes('-----BEGIN PRIVATE KEY-----'))
    return 'The key has no "private_key" (a PEM block): paste the whole file Google gave you.';
  try {
    const parsed = createPrivateKey(key.private_key);
    if (parsed.asymmetricKeyType !== 'rsa') return 'The key’s "private_key" is not an RSA key, as Google’s are.';
  } catch {
    return 'The key’s "private_key" cannot be read: paste the file as Google gave it, unchanged.';
  }
  return {
    client_email: key.client_email,
    private_key: key.private_key,
    ...(typeof key.private_key_id === 'string' ? { private_key_id: key.private_key_id } : {}),
  };
}

/** What the owner typed for a destination, before checking. */
export interface DestinationInput {
  baseId?: string;
  table?: string;
  databaseId?: string;
  spreadsheetId?: string;
  sheet?: string;
  listId?: string;
  consentField?: string;
  url?: string;
  username?: string;
  /** Blank: keep the stored one (a change); required when adding. */
  secret?: string;
}

/** Checked settings and the secret to store, or the problems by field (`secret` among them). */
export type CheckedDestination = { ok: true; settings: DestinationSettings; secret: string | null } | { ok: false; problems: Record<string, string> };

/**
 * Checks a destination as typed (`storedSecret` when changing one: a blank secret keeps it).
 * `urlProblem` is the outbound guard's check of the owner's own server (listmonk): null when it may be called.
 */
export function checkDestination(
  kind: DestinationKind,
  input: DestinationInput,
  hasStoredSecret: boolean,
  urlProblem: (url: string) => string | null,
): CheckedDestination {
  const problems: Record<string, string> = {};
  const typed = (value: string | undefined) => (value ?? '').trim();
  const settings: DestinationSettings = {};
  const secret = typed(input.secret);
  const secretName = SECRET_NAMES[kind];
  // "the API key", "the personal access token"
  if (!secret && !hasStoredSecret)
    problems.secret = `Enter the ${/^[A-Z]{2}/.test(secretName) ? secretName : secretName.charAt(0).toLowerCase() + secretName.slice(1)}.`;
  if (secret.length > 8192) problems.secret = 'This is far longer than any key: paste only the key.';
  let storedSecret: string | null = secret || null;
  switch (kind) {
    case 'airtable': {
      const baseId = typed(input.baseId);
      if (!baseId) problems.baseId = 'Enter the base’s id: it starts with app, as in the base’s address (airtable.com/app…/…).';
      else if (!AIRTABLE_BASE.test(baseId)) problems.baseId = 'A base id is app followed by 14 letters and digits, as in airtable.com/appXXXXXXXXXXXXXX/….';
      else settings.baseId = baseId;
      const table = typed(input.table);
      if (!table) problems.table = 'Enter the table’s name as the base shows it, or its id (tbl…).';
      else if (table.length > 255) problems.table = 'A table’s name is at most 255 characters.';
      else settings.table = table;
      if (secret && !AIRTABLE_TOKEN.test(secret))
        problems.secret = 'This is not a personal access token: it looks like pat… followed by a dot and more letters and digits.';
      break;
    }
    case 'notion': {
      const id = notionDatabaseId(typed(input.databaseId));
      if (!typed(input.databaseId)) problems.databaseId = 'Enter the database’s id or paste its link (Share, Copy link).';
      else if (!id) problems.databaseId = 'This holds no database id: paste the database’s link, or its id of 32 letters and digits.';
      else settings.databaseId = id;
      if (secret && !NOTION_TOKEN.test(secret)) problems.secret = 'This is not an integration secret: it starts with ntn_ (or secret_ for older ones).';
      break;
    }
    case 'google-sheets': {
      const id = spreadsheetIdOf(typed(input.spreadsheetId));
      if (!typed(input.spreadsheetId)) problems.spreadsheetId = 'Paste the spreadsheet’s link (or its id).';
      else if (!id) problems.spreadsheetId = 'This holds no spreadsheet id: paste the link the browser shows (docs.google.com/spreadsheets/d/…).';
      else settings.spreadsheetId = id;
      const sheet = typed(input.sheet) || 'Sheet1';
      if (sheet.length > 100 || /['!]/.test(sheet)) problems.sheet = 'Enter the tab’s name as the spreadsheet shows it (no ’ or !, at most 100 characters).';
      else settings.sheet = sheet;
      if (secret) {
        const key = serviceAccountKeyOf(secret);
        if (typeof key === 'string') problems.secret = key;
        else {
          settings.clientEmail = key.client_email;
          storedSecret = JSON.stringify(key);
        }
      }
      break;
    }
    case 'brevo':
    case 'listmonk':
    case 'mailchimp': {
      const listId = typed(input.listId);
      const listWords = kind === 'mailchimp' ? 'audience id' : 'list’s number';
      if (!listId) problems.listId = `Enter the ${listWords}.`;
      else if (kind === 'mailchimp' ? !MAILCHIMP_LIST.test(listId) : !LIST_NUMBER.test(listId))
        problems.listId =
          kind === 'mailchimp'
            ? 'An audience id is 5 to 20 letters and digits (Audience, Settings, Audience name and defaults).'
            : 'A list’s number is a whole number, as the list’s page shows it.';
      else settings.listId = listId;
      const consentField = typed(input.consentField);
      if (!consentField) problems.consentField = 'Enter the name of the form’s checkbox that says the visitor wants the newsletter.';
      else if (consentField.length > 200) problems.consentField = 'A field’s name is at most 200 characters.';
      else settings.consentField = consentField;
      if (kind === 'brevo' && secret && !BREVO_KEY.test(secret)) problems.secret = 'This is not a Brevo API key: it starts with xkeysib-.';
      if (kind === 'mailchimp' && secret && !mailchimpDataCentre(secret))
        problems.secret = 'This is not a Mailchimp API key: it is 32 letters and digits, a dash and the data centre (…-us21).';
      if (kind === 'listmonk') {
        const url = typed(input.url).replace(/\/+$/, '');
        if (!url) problems.url = 'Enter your listmonk’s address, like https://lists.example.com.';
        else {
          let parsed: URL | null = null;
          try {
            parsed = new URL(url);
          } catch {
            problems.url = 'Enter the whole address, starting with https://.';
          }
          if (parsed) {
            const problem = parsed.username || parsed.password ? 'must not carry a user name or password' : urlProblem(url);
            if (problem) problems.url = `The address ${problem}.`;
            else settings.url = url;
          }
        }
        const username = typed(input.username);
        if (!username) problems.username = 'Enter the API user’s name (Admin, Users: an API user).';
        else if (username.length > 200 || /[:\s]/.test(username)) problems.username = 'An API user’s name has no spaces or colons.';
        else settings.username = username;
      }
      break;
    }
  }
  if (Object.keys(problems).length > 0) return { ok: false, problems };
  return { ok: true, settings, secret: storedSecret };
}

/** Whether a consent field's value says yes: present, and not empty, `0`, `false`, `no`, `off` or `n`. */
export function consentGiven(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(consentGiven);
  if (value === undefined || value === null || value === false || value === 0) return false;
  if (typeof value === 'string') return !['', '0', 'false', 'no', 'off', 'n'].includes(value.trim().toLowerCase());
  return value === true || typeof value === 'number';
}

/** The fields a record destination sends and the names they go under: the mapping's, else the field's own; empty: left out. */
export function mappedFields<V>(fields: Map<string, V>, mapping: readonly MappingEntry[] | undefined, unlisted: 'same-name' | 'not-sent'): [string, V][] {
  const to = new Map((mapping ?? []).map((entry) => [entry.field, entry.to.trim()]));
  const out: [string, V][] = [];
  for (const [field, value] of fields) {
    const name = to.has(field) ? to.get(field)! : unlisted === 'same-name' ? field : '';
    if (name) out.push([name, value]);
  }
  return out;
}

/** What a destination targets, in a few words for its list: "base appX…, table Leads". */
export function destinationTarget(kind: DestinationKind, settings: DestinationSettings): string {
  switch (kind) {
    case 'airtable':
      return `base ${settings.baseId ?? '?'}, table “${settings.table ?? '?'}”`;
    case 'notion':
      return `database ${settings.databaseId ?? '?'}`;
    case 'google-sheets':
      return `spreadsheet ${settings.spreadsheetId ?? '?'}, tab “${settings.sheet ?? 'Sheet1'}”`;
    case 'listmonk':
      return `list ${settings.listId ?? '?'} on ${settings.url ?? '?'}, when “${settings.consentField ?? '?'}” is ticked`;
    default:
      return `${kind === 'mailchimp' ? 'audience' : 'list'} ${settings.listId ?? '?'}, when “${settings.consentField ?? '?'}” is ticked`;
  }
}
