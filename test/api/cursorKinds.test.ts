/**
 * A well-formed cursor of one kind of listing given to a listing of another kind — a `groups`
 * cursor to `jobs` or `history`, a `jobs` cursor to `groups`, … — over GraphQL over HTTP
 * (DESIGN.md §4.1, "Cursors name their listing"; §5): BAD_USER_INPUT `after`, "is a cursor of
 * another listing (of groups, not of jobs): read this listing from its start", as for a cursor
 * of another listing of the same kind; not "is not a cursor this server issued", which this
 * server did. Garbage keeps that message.
 */
import { describe, expect, it } from 'vitest';
import { post } from '../support/api.js';
import { uniqueQueueName } from '../support/lanes.js';
import { useTestServer } from '../support/server.js';

const api = useTestServer();

/** `query` (with `$q` the queue, `$after` a cursor) over HTTP: its data and errors. */
async function ask(query: string, variables: Record<string, unknown>) {
  const response = await post(api.endpoint, { query, variables });
  return response.json ?? {};
}

type Kind = 'groups' | 'jobs' | 'history';
/** A queue's pages as `issued` reads them. */
type Page = Record<Kind, { pageInfo: { endCursor: unknown } }>;

/** Every listing that takes `after`, by the kind of cursor it issues. */
const LISTINGS: readonly { name: string; kind: Kind; field: string }[] = [
  { name: 'Queue.groups', kind: 'groups', field: 'groups(after: $after) { totalCount }' },
  {
    name: 'Queue.groupsWithPrefix',
    kind: 'groups',
    field: 'groupsWithPrefix(prefix: "g", after: $after) { totalCount }',
  },
  { name: 'Queue.snapshot', kind: 'groups', field: 'snapshot(after: $after) { __typename }' },
  {
    name: 'Queue.jobs',
    kind: 'jobs',
    field: 'jobs(state: PENDING, group: "g1", after: $after) { totalCount }',
  },
  {
    name: 'Group.jobs',
    kind: 'jobs',
    field: 'group(id: "g1") { jobs(state: PENDING, after: $after) { totalCount } }',
  },
  { name: 'Queue.history', kind: 'history', field: 'history(after: $after) { totalCount }' },
];

const query = (field: string): string =>
  `query($q: String!, $after: String) { queue(name: $q) { ${field} } }`;

describe('a cursor of another kind of listing', () => {
  it('is refused as a cursor of another listing by every listing, not as garbage', async () => {
    const q = uniqueQueueName('kinds');
    const engine = api.server.engine.queue(q);
    for (const group of ['g1', 'g2']) await engine.enqueue(group, 1);
    await engine.enqueue('g1', 2);
    for (const group of ['g1', 'g2']) {
      const paused = await ask(
        'mutation($q: String!, $g: String!) { pauseGroup(queue: $q, group: $g) { id } }',
        { q, g: group },
      );
      expect(paused.errors).toBeUndefined();
    }
    /** A cursor each kind's listing issued: the end of a one-entry page. */
    const issued = async (
      field: string,
      path: (queue: Page) => { pageInfo: { endCursor: unknown } },
    ): Promise<string> => {
      const { data, errors } = await ask(`query($q: String!) { queue(name: $q) { ${field} } }`, {
        q,
      });
      expect(errors).toBeUndefined();
      const cursor = path((data as { queue: Page }).queue).pageInfo.endCursor;
      expect(cursor).toEqual(expect.any(String));
      return cursor as string;
    };
    const cursors: Record<Kind, string> = {
      groups: await issued('groups(first: 1) { pageInfo { endCursor } }', (d) => d.groups),
      jobs: await issued(
        'jobs(state: PENDING, group: "g1", first: 1) { pageInfo { endCursor } }',
        (d) => d.jobs,
      ),
      history: await issued('history(first: 1) { pageInfo { endCursor } }', (d) => d.history),
    };
    for (const listing of LISTINGS) {
      // Its own kind's cursor still pages (groupsWithPrefix's listing is another prefix's).
      if (listing.name === 'Queue.groupsWithPrefix') continue;
      const own = await ask(query(listing.field), { q, after: cursors[listing.kind] });
      expect(own.errors, listing.name).toBeUndefined();
    }
    for (const listing of LISTINGS) {
      for (const kind of ['groups', 'jobs', 'history'] as const) {
        if (kind === listing.kind) continue;
        const { errors } = await ask(query(listing.field), { q, after: cursors[kind] });
        expect(errors?.[0], `${listing.name} given a ${kind} cursor`).toMatchObject({
          message: `after: is a cursor of another listing (of ${kind}, not of ${listing.kind}): read this listing from its start, without \`after\``,
          extensions: { code: 'BAD_USER_INPUT', argument: 'after' },
        });
      }
      const garbage = await ask(query(listing.field), { q, after: 'bm90IGEgY3Vyc29y' });
      expect(garbage.errors?.[0], `${listing.name} given garbage`).toMatchObject({
        message: 'after: is not a cursor this server issued',
        extensions: { code: 'BAD_USER_INPUT', argument: 'after' },
      });
    }
  });
});
