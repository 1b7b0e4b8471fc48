/**
 * Whether a request accepts a gzipped answer, by its `accept-encoding` header (RFC 9110
 * §12.5.3) as `negotiator` (the jshttp negotiation Express uses) reads it: gzip named or `*`,
 * with a q-value above 0 (`gzip;q=0` refuses it, and so does `*, gzip;q=0`); no header: no.
 * One rule for every static answer the server compresses: the console's files
 * (src/server/console.ts) and GraphiQL's page (src/server/graphiql.ts).
 */
import Negotiator from 'negotiator';

/** `header`: the request's `accept-encoding` (null or undefined when it sent none). */
export function acceptsGzip(header: string | null | undefined): boolean {
  if (header == null) return false;
  return new Negotiator({ headers: { 'accept-encoding': header } }).encodings(['gzip']).length > 0;
}
