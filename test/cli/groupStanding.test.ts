/**
 * The CLI's words for the API's `blockedBy` (DESIGN.md §4.2): each blocker reads as its own
 * standing, a group behind a more urgent priority level or held by the queue's cap as neither
 * ready nor idle.
 */

import { readFileSync } from 'node:fs';
import { buildSchema, type GraphQLEnumType } from 'graphql';
import { describe, expect, it } from 'vitest';
import { blockerStanding, STANDING_LABEL, standing } from '../../src/cli/groupStanding.js';

const blockers = (
  buildSchema(readFileSync('schema.graphql', 'utf8')).getType('BlockedBy') as GraphQLEnumType
)
  .getValues()
  .map((v) => v.name);

describe('blockerStanding', () => {
  it('names every blocker of the schema, each apart, IDLE by what is in flight', () => {
    const words = blockers
      .filter((b) => b !== 'IDLE')
      .map((b) => STANDING_LABEL[blockerStanding(b, 0)]);
    expect(new Set(words).size).toBe(words.length);
    // Only IDLE reads as what is in flight: any other blocker falling there would hide it.
    for (const word of ['ready', 'busy', 'empty']) expect(words).not.toContain(word);
    expect(STANDING_LABEL[blockerStanding('IDLE', 0)]).toBe('empty');
    expect(STANDING_LABEL[blockerStanding('IDLE', 2)]).toBe('busy');
  });

  it('says a group behind a more urgent level is behind one, in its state and its blocker', () => {
    expect(STANDING_LABEL[blockerStanding('LEVEL', 0)]).toBe('behind a level');
    const onRota = { state: 'READY', active: 0, onRing: true };
    expect(standing({ ...onRota, blockedBy: 'LEVEL' })).toBe('behind');
    expect(standing({ ...onRota, blockedBy: null })).toBe('ready');
    expect(standing(onRota)).toBe('ready');
  });

  it("says a group on the rota of a queue at its cap waits for the queue's cap", () => {
    expect(STANDING_LABEL[blockerStanding('QUEUE_LIMIT', 3)]).toBe('queue at cap');
    const onRota = { state: 'READY', active: 3, onRing: true };
    expect(standing({ ...onRota, blockedBy: 'QUEUE_LIMIT' })).toBe('capped');
  });
});
