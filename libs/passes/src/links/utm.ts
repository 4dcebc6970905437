/**
 * The short link's target with `utm_source` set. The query is edited as text: every other
 * parameter keeps its exact bytes and order (re-serialising through URLSearchParams would turn
 * `%20` into `+` and re-encode characters some servers read differently), and the fragment
 * stays last. An existing `utm_source` is replaced, not repeated. Without a `utmSource` (null
 * or empty) the target is returned as it is, its own `utm_source` included.
 */
export function withUtmSource(targetUrl: string, utmSource: string | null): string {
  if (utmSource === null || utmSource === '') return targetUrl;

  const hashAt = targetUrl.indexOf('#');
  const fragment = hashAt === -1 ? '' : targetUrl.slice(hashAt);
  const beforeFragment = hashAt === -1 ? targetUrl : targetUrl.slice(0, hashAt);
  const queryAt = beforeFragment.indexOf('?');
  const base = queryAt === -1 ? beforeFragment : beforeFragment.slice(0, queryAt);
  const query = queryAt === -1 ? '' : beforeFragment.slice(queryAt + 1);

  const kept = query
    .split('&')
    .filter((pair) => pair !== '' && parameterName(pair) !== 'utm_source');
  kept.push(`utm_source=${encodeURIComponent(utmSource)}`);
  return `${base}?${kept.join('&')}${fragment}`;
}

/** The decoded name of one `name=value` pair, as a server parsing the query would see it. */
function parameterName(pair: string): string {
  const equalsAt = pair.indexOf('=');
  const raw = (equalsAt === -1 ? pair : pair.slice(0, equalsAt)).replace(/\+/g, ' ');
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}
