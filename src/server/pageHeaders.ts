/**
 * The headers every HTML page the server serves sends so that no other site can frame it — the
 * console at `/` (src/server/console.ts) and GraphiQL at `/graphql` (src/server/graphiql.ts).
 * Framed under another site's page, an operator's click could be dressed up as something else
 * (clickjacking); GraphiQL even pre-fills its editor from `?query=`. One set, here, so the two
 * pages cannot drift apart (DESIGN.md §6, "Hardening").
 */

/** The CSP directive that forbids every ancestor frame (CSP Level 2; modern browsers). */
export const FRAME_ANCESTORS_NONE = "frame-ancestors 'none'";

/**
 * Anti-framing headers for an HTML page: `content-security-policy` made of `directives` (the
 * page's own policy, possibly none) and {@link FRAME_ANCESTORS_NONE}, and `x-frame-options: DENY`
 * for browsers that predate `frame-ancestors`.
 * @param directives the page's other CSP directives (`"default-src 'self'"`, …), in order
 * @returns header name (lower case) → value
 */
export function antiFramingHeaders(directives: readonly string[] = []): Record<string, string> {
  return {
    'content-security-policy': [...directives, FRAME_ANCESTORS_NONE].join('; '),
    'x-frame-options': 'DENY',
  };
}
