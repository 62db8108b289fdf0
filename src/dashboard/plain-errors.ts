/**
 * A validator's or a service's message about a field ("must NOT have more than 200 characters"), as
 * a plain sentence about that field ("The thank-you title can be at most 200 characters."): the
 * pages that show messages beside fields name the field the way their labels do.
 */

/** How each field is named at the start of a sentence; a field not listed is named from its key ("The custom honeypot"). */
export type FieldNouns = Record<string, string>;

/** How an entry of a list is named, with its number after it ("Address 2"). */
export type ItemNouns = Record<string, string>;

/** The noun of a field key: `thanksTitle`, `notificationEmails[1]`, `fileUploads.maxFileSize`. */
export function nounOf(field: string, nouns: FieldNouns, items: ItemNouns = {}): string {
  const item = /^(.*)\[(\d+)\]$/.exec(field);
  if (item) {
    const base = items[item[1]!] ?? `${nounOf(item[1]!, nouns, items).replace(/^The /, '')}, entry`;
    return `${base.charAt(0).toUpperCase()}${base.slice(1)} ${Number(item[2]) + 1}`;
  }
  if (nouns[field]) return nouns[field];
  const last = field.split('.').pop() ?? field;
  return `The ${last.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase()}`;
}

const VERB = /^(must|is|are|can|cannot|has|have|should|needs|may) /;

type Rule = [RegExp, (noun: string, match: RegExpExecArray) => string];

/** The validator's words (Ajv's, describeValidation's) and the services' common ones, each as a sentence. */
const RULES: Rule[] = [
  [/^(?:must NOT have more than|must be at most|at most) (\d+) characters?$/, (noun, m) => `${noun} can be at most ${m[1]} characters.`],
  [/^must NOT have fewer than (\d+) characters?$/, (noun, m) => (m[1] === '1' ? `${noun} cannot be empty.` : `${noun} must be at least ${m[1]} characters.`)],
  [/^must NOT have more than (\d+) items?$/, (noun, m) => `${noun} can hold at most ${m[1]} entries.`],
  [/^must NOT have fewer than (\d+) items?$/, (noun, m) => `${noun} must hold at least ${m[1]} ${m[1] === '1' ? 'entry' : 'entries'}.`],
  [
    /^must NOT have duplicate items \(items ## (\d+) and (\d+) are identical\)$/,
    (noun, m) => {
      const [a, b] = [Number(m[1]), Number(m[2])].sort((x, y) => x - y);
      return `${noun} lists the same entry twice (entries ${a! + 1} and ${b! + 1}).`;
    },
  ],
  [/^must be <=? ([\d.]+)$/, (noun, m) => `${noun} can be at most ${m[1]}.`],
  [/^must be >=? ([\d.]+)$/, (noun, m) => `${noun} must be at least ${m[1]}.`],
  [/^must be an e-mail address$/, (noun) => `${noun} must be an email address, such as name@example.com.`],
  [/^must be an absolute URL$/, (noun) => `${noun} must be a full web address that starts with https:// or http://.`],
  [/^must be one of /, (noun) => `${noun} must be one of the choices offered.`],
  [/^must match (pattern|format)/, (noun) => `${noun} is not written in a form Formgate accepts; see its hint.`],
  [/^must be (string|number|integer|boolean|array|object|null)\b/, (noun) => `${noun} has a value of the wrong kind.`],
  [/^is not a known field$/, (noun) => `${noun} is not a setting Formgate knows.`],
  [/^(.+) allows at most \d+ bytes \((.+)\)$/, (noun, m) => `${noun} can be at most ${m[2]}: ${m[1]} allows no more.`],
];

/** One message as a sentence that starts with the field's noun; the keys of other fields it names are named as their labels are. */
export function plainMessage(field: string, message: string, nouns: FieldNouns, items: ItemNouns = {}): string {
  const noun = nounOf(field, nouns, items);
  const text = withNouns(message.trim().replace(/[.]$/, ''), nouns);
  if (/^[A-Z]/.test(text)) return end(text);
  for (const [pattern, say] of RULES) {
    const match = pattern.exec(text);
    if (match) return say(noun, match);
  }
  // the API's words for "empty": a page leaves a field empty, it sends no null
  const page = text
    .replace(/\bNOT\b/g, 'not')
    .replace(/, or null (for|to) /, ', or empty $1 ')
    .replace(/; leave it out \(null\) for the default$/, '; leave it empty for the default');
  return VERB.test(page) ? `${noun} ${page}.` : `${noun}: ${page}.`;
}

/** The keys of other fields a message names (`maxTotalSize`) as their nouns, mid-sentence ("the size of all files"). */
function withNouns(message: string, nouns: FieldNouns): string {
  let text = message;
  for (const [key, noun] of Object.entries(nouns)) {
    const last = key.split('.').pop() ?? key;
    if (!/[a-z][A-Z]/.test(last)) continue;
    text = text.replace(new RegExp(`\\b${last}\\b`, 'g'), noun.charAt(0).toLowerCase() + noun.slice(1));
  }
  return text;
}

function end(text: string): string {
  return /[.!?]$/.test(text) ? text : `${text}.`;
}
