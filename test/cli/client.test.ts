/**
 * The CLI's client reads whether a document is a mutation from its first keyword, without a
 * GraphQL parser (src/cli/client.ts `isMutation`): what decides whether an unanswered request
 * is exit 6 ("may have been applied") or exit 4, and whether a probe goes first. Checked here
 * against graphql-js for every document the CLI sends, so a document written another way (a
 * fragment first, a comment, an anonymous operation) cannot make a change look like a read.
 */
import { getOperationAST, parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { isMutation } from '../../src/cli/client.js';
import * as documents from '../../src/cli/gql/graphql.js';

const operations = Object.entries(documents).filter(([name]) => name.endsWith('Document'));

describe('isMutation', () => {
  it('finds the CLI’s documents, mutations and reads both', () => {
    const verdicts = operations.map(([, document]) => isMutation(document as never));
    expect(verdicts.filter(Boolean).length).toBeGreaterThan(5);
    expect(verdicts.filter((verdict) => !verdict).length).toBeGreaterThan(5);
  });

  it.each(operations)('%s: as graphql-js reads it', (_name, document) => {
    const operation = getOperationAST(parse(String(document)))?.operation;
    expect(operation).toBeDefined();
    expect(isMutation(document as never)).toBe(operation === 'mutation');
  });

  it('counts anything not plainly a read as a change (the safe side)', () => {
    expect(isMutation('fragment F on Group { id } query Q { x }' as never)).toBe(true);
    expect(isMutation('# a comment\nquery Q { x }' as never)).toBe(true);
    expect(isMutation('{ x }' as never)).toBe(true);
    expect(isMutation('\n  query Q { x }' as never)).toBe(false);
    expect(isMutation('subscription S { x }' as never)).toBe(false);
    expect(isMutation('queryish' as never)).toBe(true);
  });
});
