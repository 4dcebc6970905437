export const MAX_FILE_NAME_LENGTH = 255;
const FALLBACK_NAME = 'file';
/** Longest extension kept when a long name is shortened. */
const MAX_KEPT_EXTENSION = 16;

/**
 * A file name safe to use as a path segment, an S3 key part and a Content-Disposition value:
 * the base name only, accents folded to ASCII, control characters dropped, every run of
 * characters outside `[A-Za-z0-9._-]` replaced by one `_`, no leading dots (no hidden files,
 * no `..`), at most 255 characters keeping the extension, and never empty (`file`).
 */
export function sanitizeFileName(name: string): string {
  const base = name.split(/[/\\]/).pop() ?? '';
  let safe = base
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .replace(/\p{Cc}/gu, '')
    .trim()
    .replace(/[^A-Za-z0-9._-]+/g, '_')
    .replace(/^\.+/, '');
  if (safe.length > MAX_FILE_NAME_LENGTH) safe = shorten(safe);
  return safe === '' ? FALLBACK_NAME : safe;
}

function shorten(name: string): string {
  const dot = name.lastIndexOf('.');
  const extension = dot > 0 && name.length - dot <= MAX_KEPT_EXTENSION ? name.slice(dot) : '';
  return name.slice(0, MAX_FILE_NAME_LENGTH - extension.length) + extension;
}
