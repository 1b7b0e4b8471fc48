/**
 * The ports a browser's and Node's `fetch` refuse to connect to, whatever answers there: the
 * WHATWG Fetch standard's "bad ports" (https://fetch.spec.whatwg.org/#port-blocking), ports of
 * other protocols (SMTP, IRC, X11, …) that a page must not be able to talk to. A request to one
 * fails before it connects ("bad port" as undici, Node's fetch, says), so the console and
 * GraphiQL in a browser, and the `ringmaster` CLI, cannot reach a server listening there; curl
 * and other HTTP clients can.
 *
 * Kept here, one list for the server (which warns at start, src/server/app.ts) and the CLI
 * (which says why it cannot reach, src/cli/errors.ts): no package exports it (undici keeps its
 * copy in `lib/web/fetch/constants.js`, not in its exports): 82 ports, the same as undici
 * 7.30's (test/server/badPort.test.ts checks Node's own fetch refuses each).
 */
const BAD_PORTS: ReadonlySet<number> = new Set([
  1, 7, 9, 11, 13, 15, 17, 19, 20, 21, 22, 23, 25, 37, 42, 43, 53, 69, 77, 79, 87, 95, 101, 102,
  103, 104, 109, 110, 111, 113, 115, 117, 119, 123, 135, 137, 139, 143, 161, 179, 389, 427, 465,
  512, 513, 514, 515, 526, 530, 531, 532, 540, 548, 554, 556, 563, 587, 601, 636, 989, 990, 993,
  995, 1719, 1720, 1723, 2049, 3659, 4045, 4190, 5060, 5061, 6000, 6566, 6665, 6666, 6667, 6668,
  6669, 6679, 6697, 10080,
]);

/** Whether `fetch` (a browser's, Node's) refuses to connect to TCP `port` over HTTP(S). */
export function isFetchBadPort(port: number): boolean {
  return BAD_PORTS.has(port);
}

/** Where the list comes from, for messages. */
export const BAD_PORTS_SPEC = 'https://fetch.spec.whatwg.org/#port-blocking';
