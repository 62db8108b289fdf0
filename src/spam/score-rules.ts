// The content signals of the automatic spam filter. Each rule reads text the scorer has already
// normalised and capped, and returns findings; docs/spam-filter.md lists the same weights.
// NOTE: every pattern here is compiled once at module load and is linear on its input: no quantified
// group can match the same text in two ways, and every open-ended scan is bounded by a class it stops at.
// NOTE: a reason never quotes what the visitor sent (it is logged, and bodies never are).

/** A submission scoring this much or more is spam. */
export const SPAM_THRESHOLD = 10;

/** One signal that fired: its points and a reason fit for a log line. */
export interface Finding {
  points: number;
  reason: string;
}

/** One scanned value: the name of the field that held it and its normalised, capped text. */
export interface ScannedField {
  key: string;
  text: string;
}

export const WEIGHTS = {
  /** Per link beyond the first: one link in a message is normal. */
  extraLink: 2,
  linksMax: 10,
  shortener: 4,
  shortenersMax: 8,
  linkMarkup: 5,
  linkMarkupMax: 10,
  strongPhrase: 6,
  phrase: 3,
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
const MARKED_LINK = new RegExp(
  [
    '\\bhttps?:\\/\\/[^\\s<>"\'\\[\\]]+',
    '\\bwww\\d{0,3}\\.[^\\s<>"\'\\[\\]]+',
    `${NOT_AFTER_HOST_CHAR}(?:${SHORTENERS.map((host) => host.replaceAll('.', '\\.')).join('|')})(?![\\w@-])(?:\\/[^\\s<>"']*)?`,
  ].join('|'),
  'gi',
);
// Lower case only, so that "Bezp.Org." or "Sp.Z.O.O." in a company name is not a link. The
// lookbehind starts a domain only at its first label, so an e-mail address is never one.
const BARE_DOMAIN = new RegExp(`${NOT_AFTER_HOST_CHAR}(?:[a-z0-9-]{1,63}\\.)+(?:${BARE_TLDS})(?![\\w@-])(?:\\/[^\\s<>"']*)?`, 'g');
const LINK_MARKUP = /\[url[=\]]|\[link=|<a\s[^<>]{0,500}?href/gi;
const SCHEME_AND_WWW = /^(?:https?:\/\/)?(?:www\d{0,3}\.)?/i;
const COUNT_CAP = 100;

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
  links += countMatches(text.replace(MARKED_LINK, ' '), BARE_DOMAIN);
  const markup = countMatches(text, LINK_MARKUP);
  const findings: Finding[] = [];
  if (links > 1) findings.push({ points: Math.min((links - 1) * WEIGHTS.extraLink, WEIGHTS.linksMax), reason: `${links} links` });
  if (shorteners > 0) findings.push({ points: Math.min(shorteners * WEIGHTS.shortener, WEIGHTS.shortenersMax), reason: counted(shorteners, 'shortened link') });
  if (markup > 0)
    findings.push({ points: Math.min(markup * WEIGHTS.linkMarkup, WEIGHTS.linkMarkupMax), reason: `${counted(markup, 'link')} in markup ([url] or <a href>)` });
  return findings;
}

// ---- known spam phrases ----

// Unambiguous in a contact form: pharmacy, gambling, adult and money-doubling offers.
const STRONG_PHRASES = [
  'viagra',
  'cialis',
  'levitra',
  'kamagra',
  'sildenafil',
  'tadalafil',
  'male enhancement',
  'online pharmacy',
  'without prescription',
  'without a prescription',
  'online casino',
  'casino bonus',
  'free spins',
  'no deposit bonus',
  'sports betting',
  'betting tip(s)',
  'payday loan(s)',
  'bad credit ok',
  'bad credit accepted',
  'no credit check',
  'buy backlink(s)',
  'dofollow',
  'high da backlink(s)',
  'pbn backlink(s)',
  'guaranteed return(s)',
  'guaranteed profit(s)',
  'double your bitcoin',
  'double your crypto',
  'binary option(s)',
  'bitcoin giveaway',
  'crypto giveaway',
  'claim your prize',
  'replica watches',
  'adult dating',
  'hot singles',
  'sexy singles',
  'local singles',
  'sexy girls',
  'escort service(s)',
  'porn',
  'weight loss pill(s)',
  'diet pill(s)',
  'make money online',
  'work from home opportunity',
];
// Common in cold pitches but possible in an honest question: each alone stays far below the threshold.
const PHRASES = [
  'seo service(s)',
  'seo package(s)',
  'seo expert(s)',
  'seo agency',
  'backlink(s)',
  'link building',
  'link exchange',
  'guest post(s)',
  'guest posting',
  'sponsored post(s)',
  'sponsored article(s)',
  'rank your website',
  'rank your site',
  'rank higher on google',
  'first page of google',
  'first page on google',
  'page one of google',
  'page 1 of google',
  'top of google',
  'google ranking(s)',
  'increase your traffic',
  'increase your website traffic',
  'boost your traffic',
  'boost your ranking(s)',
  'drive traffic to your website',
  'more traffic to your website',
  'website traffic',
  'organic traffic',
  'domain authority',
  'dear sir/madam',
  'dear sir or madam',
  'dear website owner',
  'dear site owner',
  'dear business owner',
  'hello website owner',
  'hi website owner',
  'i came across your website',
  'i was checking your website',
  'i was browsing your website',
  'i noticed your website',
  'your website is not ranking',
  'crypto investment',
  'bitcoin investment',
  'forex trading',
  'forex signal(s)',
  'investment opportunity',
  'passive income',
  '100% guaranteed',
  'risk-free',
  'limited time offer',
  'act now',
  'click here',
  'click the link below',
  'unsubscribe',
  'loan offer',
  'bad credit',
  'individuals and companies',
  'casino',
  'lottery',
  'you have won',
  'explainer video(s)',
  'lead generation',
  'b2b lead(s)',
  'email list(s)',
  'email marketing list(s)',
  'verified contacts',
  'erectile dysfunction',
];

interface Phrase {
  label: string;
  source: string;
  points: number;
}

const PHRASE_LIST: Phrase[] = [
  ...STRONG_PHRASES.map((text) => ({ label: text.replace('(s)', ''), source: phraseSource(text), points: WEIGHTS.strongPhrase })),
  ...PHRASES.map((text) => ({ label: text.replace('(s)', ''), source: phraseSource(text), points: WEIGHTS.phrase })),
  // Longest first: at one position "casino bonus" must win over "casino".
].sort((a, b) => b.source.length - a.source.length);
// The lookarounds stand outside the alternation so V8 can skip ahead by first characters.
const PHRASE = new RegExp(`(?<![\\p{L}\\p{N}])(?:${PHRASE_LIST.map((p) => `(${p.source})`).join('|')})(?![\\p{L}\\p{N}])`, 'giu');

/** "payday loan(s)" → `payday\s+loans?`; a space is any whitespace, "-" is optional, "/" may have spaces. */
function phraseSource(text: string): string {
  return text
    .split(' ')
    .map((word) => {
      const plural = word.endsWith('(s)');
      const escaped = (plural ? word.slice(0, -3) : word).replace(/[\\^$.*+?()[\]{}|]/g, '\\$&');
      return escaped.replaceAll('/', '\\s*\\/\\s*').replaceAll('-', '[-\\s]?') + (plural ? 's?' : '');
    })
    .join('\\s+');
}

/** Each listed phrase counts once, however often it appears. */
export function phraseFindings(text: string): Finding[] {
  const seen = new Set<Phrase>();
  for (const match of matchesOf(text, PHRASE)) {
    const index = match.findIndex((group, i) => i > 0 && group !== undefined);
    const phrase = PHRASE_LIST[index - 1];
    if (phrase) seen.add(phrase);
  }
  const findings = [...seen].map((phrase) => ({ points: phrase.points, reason: `spam phrase "${phrase.label}"` }));
  let budget: number = WEIGHTS.phrasesMax;
  for (const finding of findings) {
    finding.points = Math.min(finding.points, budget);
    budget -= finding.points;
  }
  return findings.filter((finding) => finding.points > 0);
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
  const findings: Finding[] = INJECTIONS.filter(({ pattern }) => pattern.test(text)).map(({ kind }) => ({ points: WEIGHTS.injection, reason: kind }));
  const tags = countMatches(text, HTML_TAG);
  if (tags > 0) findings.push({ points: tags >= 3 ? WEIGHTS.manyHtmlTags : WEIGHTS.fewHtmlTags, reason: counted(tags, 'HTML tag') });
  if (BBCODE.test(text)) findings.push({ points: WEIGHTS.bbcode, reason: 'BBCode markup' });
  return findings;
}

// ---- gibberish ----

// Every link, domain and e-mail address holds one of these: a value without them is read as it is.
const MAY_HOLD_ADDRESS = /[.:@]/;
// An address is found from its '@', its local part read backwards from there: a pattern that began
// with the local part tried up to 64 characters at each position of a long dotted word.
const EMAIL_DOMAIN = /@[\w-]{1,63}(?:\.[\w-]{1,63})+/g;
const LOCAL_PART_MAX = 64;
const LETTER_RUN = /[\p{L}\p{M}]+/gu;
const LETTERS_AND_DIGITS = /[\p{L}\p{M}\p{N}]+/gu;
const ASCII_WORD = /^[A-Za-z]+$/;
const ROMAN_NUMERAL = /^[ivxlcdm]+$/;
const VOWEL = /[aeiouy]/;
const KEYBOARD_RUN = /asdf|sdfg|dfgh|fghj|ghjk|hjkl|zxcv|xcvb|cvbn|vbnm|lkjh|kjhg|jhgf|hgfd|gfds|fdsa|mnbv|nbvc|bvcx|vcxz/;
// NOTE: looksRandom runs on every word of every submission, so these read char codes (a-z is 97-122)
// rather than building a string or running a regex per letter.
const A = 97;

// Letter pairs found in fewer than 3 of every 10,000 words of the English, German, French, Spanish,
// Italian, Polish, Dutch, Swedish and Portuguese dictionaries. Left out although as rare there: "q"
// before any letter (Uzbek, Albanian, transliterated Arabic and Chinese), "xw" (Kurdish) and "cw" (Welsh).
const RARE_PAIRS = pairTable(
  'bq bx cb cd cf cg cp cv cx dx fc fq fx gq gx hq hx jj jq jx jy kq kx lx mj mq mx pq px rx sx tq tx ' +
    'vc vq vw vx vz wj wq wx xb xd xf xg xj xk xl xm xn xq xr xs xv xx xz yq yy zx',
);
// Written as one sound, so "Geschichtsschreibung" is not a run of seven consonants.
const DIGRAPHS = /sch|ch|sz|cz|th|ph|sh|ck|gh/g;
const NAME_LIKE_FIELD = /name|first|last|surname|city|town|company|organi[sz]ation/i;
const MOSTLY = 0.3;

/**
 * Random strings typed or generated to fill a form. Only words of plain Latin letters are judged:
 * other scripts, accented words, e-mail addresses, links, numbers and short codes never count.
 */
export function gibberishFindings(fields: ScannedField[]): Finding[] {
  let words = 0;
  const odd = new Set<string>();
  for (const { key, text } of fields) {
    const prose = MAY_HOLD_ADDRESS.test(text) ? withoutEmails(text.replace(MARKED_LINK, ' ').replace(BARE_DOMAIN, ' ')) : text;
    for (const [word] of matchesOf(prose, LETTER_RUN, Infinity)) {
      if (word.length < 2) continue;
      words++;
      if (looksRandom(word)) odd.add(word.toLowerCase());
    }
    // Names hold no digits; a bot's random fill often mixes them in ("k8jd9f2").
    if (NAME_LIKE_FIELD.test(key))
      for (const [token] of matchesOf(prose, LETTERS_AND_DIGITS, Infinity)) if (letterDigitSwitches(token) >= 3) odd.add(token.toLowerCase());
  }
  const count = odd.size;
  if (count === 0) return [];
  const reason = `${counted(count, 'random-looking word')} of ${words}`;
  if (count >= 2 && count / Math.max(words, 1) >= MOSTLY) return [{ points: WEIGHTS.mostlyGibberish, reason }];
  return [{ points: Math.min(count * WEIGHTS.gibberishWord, WEIGHTS.gibberishMax), reason }];
}

/** `text` with each e-mail address (up to 64 characters before the '@', a dotted domain after it) made one space. */
export function withoutEmails(text: string): string {
  let out = '';
  let from = 0;
  EMAIL_DOMAIN.lastIndex = 0;
  for (let match = EMAIL_DOMAIN.exec(text); match; match = EMAIL_DOMAIN.exec(text)) {
    let start = match.index;
    while (start > from && match.index - start < LOCAL_PART_MAX && isLocalPartChar(text.charCodeAt(start - 1))) start--;
    // no local part: not an address, and its domain may still be the local part of the next one
    if (start === match.index) continue;
    out += `${text.slice(from, start)} `;
    from = EMAIL_DOMAIN.lastIndex;
  }
  EMAIL_DOMAIN.lastIndex = 0;
  return out + text.slice(from);
}

/** What `[\w.+-]` matches: ASCII letters, digits, `_`, `.`, `+` and `-`. */
function isLocalPartChar(code: number): boolean {
  return (code >= 97 && code <= 122) || (code >= 65 && code <= 90) || (code >= 48 && code <= 57) || code === 95 || code === 46 || code === 43 || code === 45;
}

/** Exposed for tests: whether one word looks typed at random rather than written. */
export function looksRandom(word: string): boolean {
  if (word.length < 5 || !ASCII_WORD.test(word)) return false;
  // Booking references, order codes and acronyms ("QXZTRB", "HTTPS") are capitals; random fills rarely are.
  if (word.length <= 12 && word === word.toUpperCase()) return false;
  if (lowerToUpperSwitches(word) >= 3) return true;
  const lower = word.toLowerCase();
  if (ROMAN_NUMERAL.test(lower)) return false;
  if (KEYBOARD_RUN.test(lower)) return true;
  if (lower.length >= 6 && !VOWEL.test(lower) && new Set(lower).size >= 4) return true;
  const rare = rarePairs(lower);
  const run = longestConsonantRun(lower.replace(DIGRAPHS, 'c'));
  return rare >= 2 || (rare >= 1 && run >= 5) || run >= 7;
}

/** The pairs as a 26×26 table of flags, indexed by the letters' codes. */
function pairTable(pairs: string): Uint8Array {
  const table = new Uint8Array(26 * 26);
  for (const pair of pairs.split(' ')) table[(pair.charCodeAt(0) - A) * 26 + pair.charCodeAt(1) - A] = 1;
  return table;
}

/** For a word of lower-case a-z only. */
function rarePairs(word: string): number {
  let count = 0;
  for (let i = 0; i < word.length - 1; i++) count += RARE_PAIRS[(word.charCodeAt(i) - A) * 26 + word.charCodeAt(i + 1) - A]!;
  return count;
}

function longestConsonantRun(word: string): number {
  let longest = 0;
  let run = 0;
  for (let i = 0; i < word.length; i++) {
    run = isVowel(word.charCodeAt(i)) ? 0 : run + 1;
    if (run > longest) longest = run;
  }
  return longest;
}

/** a, e, i, o, u and y, as VOWEL matches them. */
function isVowel(code: number): boolean {
  return code === 97 || code === 101 || code === 105 || code === 111 || code === 117 || code === 121;
}

function lowerToUpperSwitches(word: string): number {
  let count = 0;
  for (let i = 1; i < word.length; i++) if (isLower(word.charCodeAt(i - 1)) && !isLower(word.charCodeAt(i))) count++;
  return count;
}

function isLower(code: number): boolean {
  return code >= 97 && code <= 122;
}

function letterDigitSwitches(token: string): number {
  let count = 0;
  for (let i = 1; i < token.length; i++) if (isDigit(token[i - 1]!) !== isDigit(token[i]!)) count++;
  return count;
}

function isDigit(char: string): boolean {
  return char >= '0' && char <= '9';
}

function counted(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

function countMatches(text: string, pattern: RegExp): number {
  return matchesOf(text, pattern).length;
}

/**
 * The first `cap` matches of a global pattern (none here matches the empty string). Not `matchAll`:
 * it copies the pattern at each call, which cost more than the matching for the long ones here.
 */
function matchesOf(text: string, pattern: RegExp, cap = COUNT_CAP): RegExpExecArray[] {
  const found: RegExpExecArray[] = [];
  pattern.lastIndex = 0;
  for (let match = pattern.exec(text); match && found.length < cap; match = pattern.exec(text)) found.push(match);
  pattern.lastIndex = 0;
  return found;
}
