/**
 * DESIGN.md §6: `/graphql` follows the GraphQL-over-HTTP specification — graphql-http's own
 * audit suite, run against the real server. Every MUST and SHOULD audit has to pass (a
 * body that is not JSON is answered 400 under application/json too), and so does every MAY
 * audit but those named in {@link MAY_DECLINED} — among them the GET-with-variables cases,
 * which CSRF prevention used to refuse.
 */
import { serverAudits } from 'graphql-http';
import { describe, expect, it } from 'vitest';
import { useTestServer } from '../support/server.js';

const api = useTestServer();

/** MAY audits the server chooses not to do, each with why (none today). */
const MAY_DECLINED: ReadonlySet<string> = new Set<string>([]);

describe('GraphQL over HTTP audits', () => {
  for (const audit of serverAudits({ url: () => api.endpoint, fetchFn: fetch })) {
    it(audit.name, async () => {
      const result = await audit.fn();
      const reason = 'reason' in result ? result.reason : '';
      if (audit.name.startsWith('MAY') && MAY_DECLINED.has(audit.name)) {
        // Declined: not doing a MAY is within the spec, erring on it is not.
        expect(result.status, reason).not.toBe('error');
      } else {
        expect(result.status, reason).toBe('ok');
      }
    });
  }
});
