/**
 * The CLI's words for the API's `blockedBy` (DESIGN.md §4.2): each blocker reads as its own
 * standing, a group behind a more urgent priority level as neither ready nor idle.
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
    expect(words).not.toContain('ready');
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
});
