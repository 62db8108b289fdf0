/** `text` cut to `length` code points (never inside one), with an ellipsis when cut. */
export function cutText(text: string, length: number): string {
  const chars = Array.from(text);
  return chars.length <= length
    ? text
    : `${chars
        .slice(0, length - 1)
        .join('')
        .trimEnd()}…`;
}
