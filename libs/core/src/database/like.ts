/**
 * A case-insensitive "contains" pattern for `LOWER(column) LIKE :pattern ESCAPE '!'`, with
 * `%`, `_` and the escape character itself taken literally. `!` rather than a backslash,
 * because backslash escaping differs between SQLite and MySQL string literals.
 */
export function likeContains(text: string): string {
  return `%${text.toLowerCase().replace(/[!%_]/g, (c) => `!${c}`)}%`;
}
