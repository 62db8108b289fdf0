const ENTITIES: Record<string, string> = {
  '&amp;': '&',
  '&lt;': '<',
  '&gt;': '>',
  '&quot;': '"',
  '&#x27;': "'",
  '&#39;': "'",
  '&#x3D;': '=',
  '&#x60;': '`',
  '&nbsp;': ' ',
};

/**
 * A plain-text alternative: scripts, styles and the title dropped, tags dropped, a blank line after each
 * paragraph, heading, list, quote and table, a line break after other blocks, no indentation,
 * entities decoded. NOTE: linear in the length of the HTML, whatever it holds (a rendered email is
 * up to 1 MiB): no pattern here scans on from each of many starts, as `<[^>]+>` does over many `<`
 * without a `>`.
 */
export function htmlToText(html: string): string {
  const text = dropScriptsAndStyles(html)
    .replace(/<br\s*\/?>/gi, '\n')
    // a paragraph ends with a blank line, as paragraphs are written in plain text; a line of a block with one line break
    .replace(/<\/(p|h[1-6]|table|ul|ol|blockquote)>/gi, '\n\n')
    .replace(/<\/(div|li|tr)>/gi, '\n')
    .replace(/<\/t[dh]>/gi, ' ')
    .replace(/<li[^<>]*>/gi, '- ')
    .replace(/<[^<>]+>/g, '')
    .replace(/&[#\w]+;/g, (e) => ENTITIES[e] ?? e);
  return (
    text
      .split('\n')
      // the indentation of the HTML's source is not text: HTML does not show it either
      .map((line) => trimSpaces(line))
      .join('\n')
      .replace(/\n{3,}/g, '\n\n')
      .trim()
  );
}

/** `<script>…</script>`, `<style>…</style>` and `<title>…</title>` (the subject again) removed; one left open stays as text. */
function dropScriptsAndStyles(html: string): string {
  const open = /<(script|style|title)/gi;
  const unclosed = new Set<string>();
  let out = '';
  let from = 0;
  for (let match = open.exec(html); match; match = open.exec(html)) {
    const tag = match[1]!.toLowerCase();
    if (unclosed.has(tag)) continue;
    const close = new RegExp(`</${tag}>`, 'gi');
    close.lastIndex = open.lastIndex;
    if (!close.exec(html)) {
      // none closes after this one, so none closes after any later one either
      unclosed.add(tag);
      continue;
    }
    out += html.slice(from, match.index);
    from = close.lastIndex;
    open.lastIndex = from;
  }
  return out + html.slice(from);
}

/** Spaces and tabs removed from both ends. */
function trimSpaces(line: string): string {
  let end = line.length;
  while (end > 0 && (line[end - 1] === ' ' || line[end - 1] === '\t')) end--;
  let start = 0;
  while (start < end && (line[start] === ' ' || line[start] === '\t')) start++;
  return line.slice(start, end);
}
