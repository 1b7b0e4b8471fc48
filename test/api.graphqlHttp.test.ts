/**
 * DESIGN.md §6: `/graphql` follows the GraphQL-over-HTTP specification — graphql-http's own
 * audit suite, run against the real server. Every MUST audit has to pass; SHOULD/MAY audits
 * are reported by name so a regression in them is visible too.
 */
import { serverAudits } from 'graphql-http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestRedis } from './support/redis.js';
import { startTestServer, type TestServer } from './support/server.js';

const redis = useTestRedis();
let api: TestServer;

beforeAll(async () => {
  api = await startTestServer(redis.url);
});
afterAll(async () => {
  await api?.stop();
});

describe('GraphQL over HTTP audits', () => {
  for (const audit of serverAudits({ url: () => api.endpoint, fetchFn: fetch })) {
    it(audit.name, async () => {
      const result = await audit.fn();
      if (audit.name.startsWith('MUST')) {
        expect(result.status, 'reason' in result ? result.reason : '').toBe('ok');
      } else {
        // SHOULD and MAY: a warning is acceptable by the spec, an error is not.
        expect(result.status, 'reason' in result ? result.reason : '').not.toBe('error');
      }
    });
  }
});
