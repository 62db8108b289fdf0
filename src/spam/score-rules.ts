// The content signals of the automatic spam filter, and what they share (weights, findings, the link
// patterns, bounded matching): links and markup here, known phrases in known-phrases.ts, random words
// in gibberish.ts. Each rule reads text the scorer has already normalised and capped, and returns
// findings; docs/spam-filter.md lists the same weights.
// NOTE: every pattern here and in those two files is compiled once at module load and is linear on its input: no quantified
// group can match the same text in two ways, and every open-ended scan is bounded by a class it stops at.
// NOTE: a reason never quotes what the visitor sent (it is logged, and bodies never are).

/** A submission scoring this much or more is spam. */
export const SPAM_THRESHOLD = 10;

/** One signal that fired: its points and a reason fit for a log line. */
export interface Finding {
  points: number;
  reason: string;
  /** Spam whatever else is found: code injection, a bot's repeats, a text of random words. No learned evidence outweighs it. */
  decisive?: true;
}

/** One scanned value: the name of the field that held it and its normalised, capped text. */
export interface ScannedField {
  key: string;
  text: string;
}

export const WEIGHTS = {
  /** Per link beyond the first: one link in a message is normal. */
  extraLink: 2,
  /** Links in a message of prose (a blog post, a newsletter) are a hint, not proof: the other signals must agree. */
  linksMax: 8,
  /** A message that is little but links (at most LINK_LIST_WORDS words a link) is a link farm. */
  linkListMax: 10,
  shortener: 4,
  shortenersMax: 8,
  linkMarkup: 5,
  linkMarkupMax: 10,
  strongPhrase: 6,
  /** Cold-pitch wording an honest message may use too: a hint, as the learned filter weighs wording (issue 40). */
  phrase: 1,
  phrasesMax: 20,
  injection: 10,
  fewHtmlTags: 2,
  manyHtmlTags: 4,
  bbcode: 4,
  gibberishWord: 3,
  gibberishMax: 6,
  mostlyGibberish: 10,
  repeated: 10,
} as const;

// ---- links ----

const SHORTENERS = [
  'bit.ly',
  'tinyurl.com',
  'goo.gl',
  't.co',
  'ow.ly',
  'is.gd',
  'buff.ly',
  'cutt.ly',
  'rebrand.ly',
  'shorturl.at',
  'rb.gy',
  't.ly',
  'tiny.cc',
  'bl.ink',
  's.id',
  'v.gd',
  'shorte.st',
  'adf.ly',
  'bc.vc',
  'clck.ru',
  'u.to',
  'qps.ru',
  'tiny.one',
  'soo.gd',
];
const SHORTENER_HOSTS = new Set(SHORTENERS);
// Bare domains count only with these endings: short ones such as .in or .me are also typos ("Berlin.In").
const BARE_TLDS =
  'com|net|org|info|biz|ru|su|ua|cn|xyz|top|io|online|site|shop|store|club|live|pro|cc|tk|ml|ga|cf|gq|win|bid|loan|click|link|icu|vip|app|dev|uk|de|fr|nl|pl';
const NOT_AFTER_HOST_CHAR = '(?<![\\w@./-])';
export const MARKED_LINK = new RegExp(
  [
    '\\bhttps?:\\/\\/[^\\s<>"\'\\[\\]]+',
    '\\bwww\\d{0,3}\\.[^\\s<>"\'\\[\\]]+',
    `${NOT_AFTER_HOST_CHAR}(?:${SHORTENERS.map((host) => host.replaceAll('.', '\\.')).join('|')})(?![\\w@-])(?:\\/[^\\s<>"']*)?`,
  ].join('|'),
  'gi',
);
// Lower case only, so that "Bezp.Org." or "Sp.Z.O.O." in a company name is not a link. The
// lookbehind starts a domain only at its first label, so an e-mail address is never one.
export const BARE_DOMAIN = new RegExp(`${NOT_AFTER_HOST_CHAR}(?:[a-z0-9-]{1,63}\\.)+(?:${BARE_TLDS})(?![\\w@-])(?:\\/[^\\s<>"']*)?`, 'g');
const LINK_MARKUP = /\[url[=\]]|\[link=|<a\s[^<>]{0,500}?href/gi;
const SCHEME_AND_WWW = /^(?:https?:\/\/)?(?:www\d{0,3}\.)?/i;
const COUNT_CAP = 100;
const LINK_LIST_WORDS = 4;
const PROSE_WORD = /\p{L}{2,}/gu;

/** Several links are suspicious, many are spam; shorteners and link markup hide where they lead. */
export function linkFindings(text: string): Finding[] {
  let links = 0;
  let shorteners = 0;
  for (const match of matchesOf(text, MARKED_LINK)) {
    if (++links >= COUNT_CAP) break;
    const host =
      match[0]
        .replace(SCHEME_AND_WWW, '')
        .split(/[/?#:]/, 1)[0]
        ?.toLowerCase() ?? '';
    if (SHORTENER_HOSTS.has(host)) shorteners++;
  }
  // Blanked first, so a domain inside a link's path or query is not counted again.
  const withoutMarked = text.replace(MARKED_LINK, ' ');
  links += countMatches(withoutMarked, BARE_DOMAIN);
  const markup = countMatches(text, LINK_MARKUP);
  const findings: Finding[] = [];
  if (links > 1) {
    // words counted up to the most a list of these links may hold, no further
    const listOfLinks = matchesOf(withoutMarked.replace(BARE_DOMAIN, ' '), PROSE_WORD, links * LINK_LIST_WORDS + 1).length <= links * LINK_LIST_WORDS;
    const points = Math.min((links - 1) * WEIGHTS.extraLink, listOfLinks ? WEIGHTS.linkListMax : WEIGHTS.linksMax);
    findings.push({ points, reason: listOfLinks ? `${links} links with little else` : `${links} links` });
  }
  if (shorteners > 0) findings.push({ points: Math.min(shorteners * WEIGHTS.shortener, WEIGHTS.shortenersMax), reason: counted(shorteners, 'shortened link') });
  if (markup > 0)
    findings.push({ points: Math.min(markup * WEIGHTS.linkMarkup, WEIGHTS.linkMarkupMax), reason: `${counted(markup, 'link')} in markup ([url] or <a href>)` });
  return findings;
}

// ---- script and markup injection ----

const INJECTIONS: { kind: string; pattern: RegExp }[] = [
  { kind: '<script> tag', pattern: /<\s*script\b/i },
  { kind: 'embedded frame or object', pattern: /<\s*(?:iframe|frameset|object|embed|applet)\b/i },
  // "javascript:alert(1)", not "Skills: JavaScript: 5 years".
  { kind: 'script URL', pattern: /\b(?:javascript|vbscript):(?!\s|$)|\bdata:text\/html/i },
  {
    kind: 'event handler attribute',
    pattern: /\bon(?:error|load|click|dblclick|mouse[a-z]{0,8}|focus|blur|toggle|animationstart|pointer[a-z]{0,8}|begin|submit|change|input)\s*=/i,
  },
  {
    kind: 'SQL injection',
    pattern:
      /['"]\s*(?:or|and)\s+['"]?\d+['"]?\s*=\s*['"]?\d+|\bunion\s+(?:all\s+)?select\b|;\s*(?:drop|truncate)\s+table\b|\bsleep\s*\(\s*\d+\s*\)|\bwaitfor\s+delay\b|\binformation_schema\b|\bxp_cmdshell\b/i,
  },
  { kind: 'template or server code injection', pattern: /\$\{jndi:|<\?php\b|\{\{\s*\d+\s*\*\s*\d+\s*\}\}|\{\{\s*(?:config|self|request)\b/i },
];
const HTML_TAG = /<\/?[a-z][a-z0-9]{0,15}(?:\s[^<>]{0,500})?\/?>/gi;
// Closing tags only: "[i]" alone is an array index in a developer's question, "[/i]" is not.
const BBCODE = /\[\/(?:url|link|img|b|i|u|s|color|size|quote|font|center|code)\]/i;

/** A contact form has no business carrying scripts, SQL or markup: each kind of attack is spam on its own. */
export function markupFindings(text: string): Finding[] {
  const findings: Finding[] = INJECTIONS.filter(({ pattern }) => pattern.test(text)).map(({ kind }) => ({
    points: WEIGHTS.injection,
    reason: kind,
    decisive: true as const,
  }));
  const tags = countMatches(text, HTML_TAG);
  if (tags > 0) findings.push({ points: tags >= 3 ? WEIGHTS.manyHtmlTags : WEIGHTS.fewHtmlTags, reason: counted(tags, 'HTML tag') });
  if (BBCODE.test(text)) findings.push({ points: WEIGHTS.bbcode, reason: 'BBCode markup' });
  return findings;
}

/** "1 link", "2 links": a reason's count and noun. */
export function counted(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

function countMatches(text: string, pattern: RegExp): number {
  return matchesOf(text, pattern).length;
}

/**
 * The first `cap` matches of a global pattern (none here matches the empty string). Not `matchAll`:
 * it copies the pattern at each call, which cost more than the matching for the long ones here.
 */
export function matchesOf(text: string, pattern: RegExp, cap = COUNT_CAP): RegExpExecArray[] {
  const found: RegExpExecArray[] = [];
  pattern.lastIndex = 0;
  for (let match = pattern.exec(text); match && found.length < cap; match = pattern.exec(text)) found.push(match);
  pattern.lastIndex = 0;
  return found;
}
