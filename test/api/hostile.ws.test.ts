/**
 * Frames written to hurt, over graphql-ws (the table is test/fixtures/hostile/ws.ts): each is
 * answered with its close code, upgrade status or operation error, leaks nothing, changes
 * nothing in Redis, and the server is up afterwards over HTTP and WebSocket. A subscription whose
 * root field is conditional is refused on SSE too. (Bad values of a subscription's arguments,
 * over the socket too, are badInput.test.ts.)
 */
import { describe, expect, it } from 'vitest';
import { QUEUE } from '../fixtures/hostile/documents.js';
import { CONDITIONAL_ROOTS, WS_CASES } from '../fixtures/hostile/ws.js';
import { codes, expectNoLeak, expectRedisUnchanged, post } from '../support/api.js';
import { expectServerUp, playWs } from '../support/hostile.js';
import { useSeededServer } from '../support/seededServer.js';

const hostile = useSeededServer(QUEUE);

describe('the hostile table over WebSocket', () => {
  it.each(WS_CASES)('$name', async (c) => {
    const result = await expectRedisUnchanged(hostile.r, () => playWs(c, hostile.api.endpoint));
    for (const frame of result.frames) expectNoLeak(frame);
    expectNoLeak(result.closeReason ?? '');
    if (c.upgradeStatus !== undefined) {
      expect(result.upgradeStatus).toBe(c.upgradeStatus);
      expect(result.frames).toEqual([]);
    } else if (c.errorCode !== undefined) {
      expect(result.stillOpen, 'the socket stays open after a refused operation').toBe(true);
      type Coded = { extensions?: { code?: string } };
      const answer = result.frames
        .map((f) => JSON.parse(f) as { type: string; payload?: unknown })
        .find((m) => m.type === 'error' || m.type === 'next');
      // `error`: refused before it ran; `next`: a field error, with nothing answered (`data`
      // null, or — a mutation field being nullable — each of its fields null).
      const errors =
        answer?.type === 'error'
          ? (answer.payload as Coded[])
          : (answer?.payload as { data: unknown; errors?: Coded[] } | undefined)?.errors;
      if (answer?.type === 'next') {
        const data = (answer.payload as { data: Record<string, unknown> | null }).data;
        expect(Object.values(data ?? {}).filter((v) => v !== null)).toEqual([]);
      }
      expect(errors?.[0]?.extensions?.code).toBe(c.errorCode);
    } else {
      expect(result.closeCode, result.frames.join(' | ')).toBe(c.close);
    }
    await expectServerUp(hostile.api, true);
  });
});

describe('subscription refusals on both transports', () => {
  it.each(CONDITIONAL_ROOTS)(
    'a root field %s is refused over SSE with GRAPHQL_VALIDATION_FAILED',
    async (_label, query, variables) => {
      const response = await post(
        hostile.api.endpoint,
        { query, variables },
        { accept: 'text/event-stream' },
      );
      expect(codes(response.json), response.text).toEqual(['GRAPHQL_VALIDATION_FAILED']);
    },
  );
});
