/** Cuts text to at most `max` characters, saying how much was cut so the reader knows. */
export function capText(text: string, max: number): string {
  if (text.length <= max) return text;
  const note = `\n… [output cut: ${text.length - max} more characters; structured output has the rest or narrow the request]`;
  let keep = Math.max(0, max - note.length);
  // Do not split a surrogate pair.
  const code = text.charCodeAt(keep - 1);
  if (code >= 0xd800 && code <= 0xdbff) keep -= 1;
  return text.slice(0, keep) + note;
}
