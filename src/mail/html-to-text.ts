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
 * A plain-text alternative: scripts and styles dropped, tags dropped, block ends as line breaks,
 * entities decoded. NOTE: linear in the length of the HTML, whatever it holds (a rendered email is
 * up to 1 MiB): no pattern here scans on from each of many starts, as `<[^>]+>` does over many `<`
 * without a `>`.
 */
export function htmlToText(html: string): string {
  const text = dropScriptsAndStyles(html)
    .replace(/<br\s*\/?>/gi, '\n')
    .replace(/<\/(p|div|h[1-6]|li|tr|table)>/gi, '\n')
    .replace(/<li[^<>]*>/gi, '- ')
    .replace(/<[^<>]+>/g, '')
    .replace(/&[#\w]+;/g, (e) => ENTITIES[e] ?? e);
  return text
    .split('\n')
    .map((line) => trimSpacesEnd(line))
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** `<script>…</script>` and `<style>…</style>` removed; one left open stays as text. */
function dropScriptsAndStyles(html: string): string {
  const open = /<(script|style)/gi;
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

function trimSpacesEnd(line: string): string {
  let end = line.length;
  while (end > 0 && (line[end - 1] === ' ' || line[end - 1] === '\t')) end--;
  return line.slice(0, end);
}
