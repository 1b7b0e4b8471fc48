/**
 * Requests written to hurt, over HTTP (the table is test/fixtures/hostile/http.ts): each is
 * answered with its HTTP status and `extensions.code`, leaks nothing, changes nothing in Redis
 * (every key's DUMP and PTTL compared before and after), and the server is up afterwards (a
 * health probe and a real query after every one).
 *
 * Not repeated here: every argument's bad values (badInput.test.ts) and the role matrix
 * (auth.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { QUEUE } from '../fixtures/hostile/documents.js';
import { HTTP_CASES } from '../fixtures/hostile/http.js';
import { WS_CASES } from '../fixtures/hostile/ws.js';
import { codes, expectNoLeak, expectRedisUnchanged } from '../support/api.js';
import { expectServerUp, send } from '../support/hostile.js';
import { useSeededServer } from '../support/seededServer.js';

const hostile = useSeededServer(QUEUE);

describe('the hostile table over HTTP', () => {
  it('has at least 60 requests with distinct names', () => {
    expect(new Set(HTTP_CASES.map((c) => c.name)).size).toBe(HTTP_CASES.length);
    expect(HTTP_CASES.length + WS_CASES.length).toBeGreaterThanOrEqual(60);
  });

  it.each(HTTP_CASES)(
    '$name → $status $code',
    async ({ sent, status, code, message, messages }) => {
      const response = await expectRedisUnchanged(hostile.r, () =>
        send(sent, hostile.api.endpoint),
      );
      expectNoLeak(response.text);
      expect(response.status, response.text.slice(0, 300)).toBe(status);
      if (code === null) {
        // A refusal before GraphQL: no data, never a partial result.
        expect(response.json?.data).toBeUndefined();
      } else {
        expect(codes(response.json)[0], response.text.slice(0, 300)).toBe(code);
        expect(response.json?.data ?? null, 'nothing was answered').toSatisfy(
          (data: unknown) =>
            data === null || Object.values(data as object).every((v) => v === null),
        );
      }
      if (message) expect(response.json?.errors?.[0]?.message).toMatch(message);
      if (messages) {
        expect(response.json?.errors?.map((e) => e.message)).toEqual(
          messages.map((m) => expect.stringMatching(m)),
        );
      }
      await expectServerUp(hostile.api);
    },
  );
});
