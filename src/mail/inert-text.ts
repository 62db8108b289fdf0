import { headerText } from './header-text.js';

// Dots, colons, at signs and slashes inside a word (full-width and ideographic dots too, which some
// clients take for dots in a host name): the characters that make text a link, a host or an address.
const LINK_MAKERS = /(?<=\S)([.:@/\uFF0E\u3002\uFF61])(?=\S)/gu;

/**
 * An owner's words (a workspace's or a form's name) quoted in an email to someone who did not ask
 * for it: one line, at most `max` characters, and every character that could make a link, a host
 * name or an address bracketed (`evil[.]example`, `https[:][/][/]…`), so no mail client turns the
 * name into something to click (issue 38, item 10). NOTE: a phone number cannot be made inert this
 * way in every client; the subject carries no owner text, and the allowances bound how many go.
 */
export function inertQuote(value: string, max = 60): string {
  const line = headerText(value, max + 1);
  const clipped = Array.from(line).length > max ? `${Array.from(line).slice(0, max).join('')}…` : line;
  return clipped.replace(LINK_MAKERS, '[$1]');
}
