/**
 * The document around every built-in email's HTML: an uppercase doctype, the language, and a head
 * with the character set and a title (the subject, cut to 70 characters), as HTML validators and mail clients expect.
 * `bodyStyle` is the body's inline style (email clients drop most `<style>` sheets); `body` is HTML,
 * escaped by the caller.
 */
export function emailDocument(input: { title: string; bodyStyle: string; body: string }): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeText(shortTitle(input.title))}</title>
</head>
<body style="${input.bodyStyle}">
${input.body}
</body>
</html>
`;
}

// NOTE: html-validate's `long-title`: a title past 70 characters is cut where people would see it cut anyway
const TITLE_MAX = 70;

/** The title at most 70 characters long: cut at a word's end with an ellipsis when longer. */
function shortTitle(title: string): string {
  const chars = Array.from(title);
  if (chars.length <= TITLE_MAX) return title;
  const cut = chars.slice(0, TITLE_MAX - 1).join('');
  const space = cut.lastIndexOf(' ');
  return `${space > TITLE_MAX / 2 ? cut.slice(0, space) : cut}…`;
}

/** Text escaped as an element's content needs (quotes need it only in attributes). */
function escapeText(value: string): string {
  return value.replace(/[&<>]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;' })[c]!);
}
