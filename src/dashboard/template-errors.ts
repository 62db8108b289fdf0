/** A problem of a template, with the line it is on when the engine said. */
export interface TemplateError {
  line: number | null;
  message: string;
}

/**
 * Finds the line in the engine's messages, which say it in four ways: Handlebars' parser ("Parse
 * error on line 3: <excerpt> ---^ Expecting …"), its lexer ("Lexical error on line 3. …"), its
 * compiler ("if doesn't match unless - 3:7"), and the engine's own checks ("line 3, column 1: …").
 */
export function locateTemplateError(raw: string): TemplateError {
  const entry = raw.replace(/^code: /, '');
  let match = /^Parse error on line (\d+):.*?(Expecting .*)$/s.exec(entry);
  if (match) return { line: Number(match[1]), message: parseMessage(match[2]!) };
  match = /^Lexical error on line (\d+)\.\s*(.*)$/s.exec(entry);
  // its excerpt follows the first sentence ("Unrecognized text."), cut where the line was joined
  if (match) return { line: Number(match[1]), message: sentence(`${match[2]!.split('.')[0]} (a placeholder is not written as Handlebars reads it)`) };
  match = /^line (\d+), column \d+: (.*)$/s.exec(entry);
  if (match) return { line: Number(match[1]), message: sentence(match[2]!) };
  match = /^(.*) - (\d+):\d+$/s.exec(entry);
  if (match) return { line: Number(match[2]), message: sentence(match[1]!) };
  return { line: null, message: sentence(entry) };
}

// The parser names tokens ('OPEN_ENDBLOCK', 'EOF'); a person reads what is missing.
function parseMessage(expecting: string): string {
  if (/got 'EOF'/.test(expecting) && /OPEN_ENDBLOCK|INVERSE/.test(expecting)) return 'A block is not closed: add its {{/…}} before the end.';
  if (/got 'EOF'/.test(expecting)) return 'The template ends in the middle of a placeholder: close it with }}.';
  const got = /got '([A-Z_]+)'/.exec(expecting)?.[1];
  if (got === 'NUMBER' || got === 'BOOLEAN' || got === 'NULL' || got === 'UNDEFINED')
    return 'A name that is a number or a word like true or null goes in brackets: {{data.[0]}}.';
  return sentence(`Handlebars could not read this: ${expecting}`);
}

function sentence(message: string): string {
  const text = message.trim().charAt(0).toUpperCase() + message.trim().slice(1);
  return /[.!?]$/.test(text) ? text : `${text}.`;
}
