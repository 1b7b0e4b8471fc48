/**
 * A read the admin console needs, beside (not inside) `Queue`, bounded by its answer:
 *
 * - {@link groupsWithPrefix}: a page of registered groups whose id starts with a prefix, by id —
 *   `ZRANGEBYLEX` between `[prefix` and `[prefix\xff` and `ZLEXCOUNT` on the same range, both
 *   O(log groups + page). No byte 0xff ever occurs in UTF-8, so every id that starts with the
 *   prefix sorts below `prefix\xff`, and no other id sorts between the two bounds.
 *
 * It registers and writes nothing.
 */
import type { Queue } from './queue.js';
import type { GroupInfo, GroupPage } from './types.js';
import * as validate from './validate.js';

/** A group's place on the ring: 1-based `position` (null when not on it) of `length`. */
export interface RingPosition {
  readonly position: number | null;
  readonly length: number;
}

/**
 * A page of the registered groups whose id starts with `prefix`, ordered by id (Redis byte
 * order), after the group the cursor `after` names. `totalCount` counts the matches.
 * @throws RingmasterError BAD_USER_INPUT for a bad prefix (as a group id), `first` or cursor
 */
export async function groupsWithPrefix(
  queue: Queue,
  prefix: string,
  options: { first?: number | undefined; after?: string | null | undefined } = {},
): Promise<GroupPage> {
  const p = Buffer.from(validate.groupId(prefix, 'prefix'), 'utf8');
  const first = validate.pageSize(options.first ?? 50);
  const after =
    options.after == null ? null : Buffer.from(validate.cursor.decode(options.after), 'utf8');
  const lowest = Buffer.concat([Buffer.from('['), p]);
  const highest = Buffer.concat([Buffer.from('['), p, Buffer.from([0xff])]);
  // Resume after the cursor when it lies inside the range; before the prefix, start at it.
  const min =
    after !== null && Buffer.compare(after, p) >= 0
      ? Buffer.concat([Buffer.from('('), after])
      : lowest;
  const [ids, totalCount] = await Promise.all([
    queue.redis.zrangebylex(queue.keys.groups, min, highest, 'LIMIT', 0, first + 1),
    queue.redis.zlexcount(queue.keys.groups, lowest, highest),
  ]);
  const pageIds = ids.slice(0, first);
  // Each read is one MULTI; issued together, ioredis writes them in one go (one round trip).
  const groups: GroupInfo[] = await Promise.all(pageIds.map((id) => queue.group(id)));
  const cursors = pageIds.map((id) => validate.cursor.encode(id));
  return {
    groups,
    cursors,
    hasNextPage: ids.length > first,
    endCursor: cursors.at(-1) ?? null,
    totalCount,
  };
}
