// The known spam phrases of the automatic filter: a list, and one pattern over all of it.
// NOTE: the pattern is compiled once at module load; its alternation is longest first.
import { type Finding, matchesOf, WEIGHTS } from './score-rules.js';

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
