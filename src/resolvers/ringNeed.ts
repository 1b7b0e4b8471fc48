/**
 * What of the ring a `ringChanged` subscriber's selection asks for (DESIGN.md §4.4): the feed
 * takes the head of the ring for its events only as far as some subscriber will send it, so a
 * change costs O(what changed) for subscribers that select no whole list.
 */
import {
  type FieldNode,
  type GraphQLResolveInfo,
  Kind,
  type SelectionSetNode,
  type ValueNode,
} from 'graphql';
import { badInput } from '../lanes/errors.js';
import type { RingNeed } from '../pubsub/index.js';

const ALL = Number.POSITIVE_INFINITY;

/** The `first` argument of a field (Infinity when absent or null). */
function firstOf(field: FieldNode, variables: Record<string, unknown>): number {
  const arg = field.arguments?.find((a) => a.name.value === 'first');
  if (arg === undefined) return ALL;
  const value: ValueNode = arg.value;
  const raw =
    value.kind === Kind.VARIABLE
      ? variables[value.name.value]
      : value.kind === Kind.INT
        ? Number(value.value)
        : value.kind === Kind.NULL
          ? null
          : Number.NaN;
  if (raw === null || raw === undefined) return ALL;
  if (typeof raw !== 'number' || !Number.isInteger(raw) || raw < 0) {
    throw badInput('first', `must be an integer of 0 or more, got ${String(raw)}`);
  }
  return raw;
}

/**
 * The need of the `ringChanged` field's selection: the most of `ring` any selection of it
 * (aliases, fragments) asks for, and of `added` (a SNAPSHOT's is the ring).
 * @throws RingmasterError BAD_USER_INPUT (`first`) for a negative or non-integer `first`
 */
export function ringNeedOf(info: GraphQLResolveInfo): RingNeed {
  let ring = 0;
  let snapshotAdded = 0;
  const seen = new Set<string>();
  const walk = (set: SelectionSetNode | undefined) => {
    for (const selection of set?.selections ?? []) {
      if (selection.kind === Kind.FIELD) {
        if (selection.name.value === 'ring') {
          ring = Math.max(ring, firstOf(selection, info.variableValues));
        } else if (selection.name.value === 'added') {
          snapshotAdded = Math.max(snapshotAdded, firstOf(selection, info.variableValues));
        } else if (selection.name.value === 'removed') {
          firstOf(selection, info.variableValues);
        }
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        walk(selection.selectionSet);
      } else if (!seen.has(selection.name.value)) {
        seen.add(selection.name.value);
        walk(info.fragments[selection.name.value]?.selectionSet);
      }
    }
  };
  for (const node of info.fieldNodes) walk(node.selectionSet);
  return { ring, snapshotAdded };
}
