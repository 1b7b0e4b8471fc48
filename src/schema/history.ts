/**
 * The steering history (DESIGN.md §4.6): `HistoryEntry`, `Queue.history` (a Relay connection,
 * newest first) and `Subscription.historyAdded`. Readable by the read role: an entry names who
 * acted (a token's name, else its role), never a token.
 */
import type { HistoryEntry } from '../lanes/index.js';
import { HISTORY_PAGE_SIZE } from '../lanes/internal.js';
import type { HistoryBatch } from '../pubsub/index.js';
import * as resolve from '../resolvers/history.js';
import { type HistoryConnection, historyAdded } from '../resolvers/history.js';
import { builder } from './builder.js';
import { PageInfoRef } from './pageInfo.js';
import { QueueRef } from './queue.js';

export const HistoryEntryRef = builder.objectRef<HistoryEntry>('HistoryEntry').implement({
  description:
    'One steering action, as recorded by the script that did it: what, on which group, who asked, the state it changed before and after, and what the call was asked and answered.',
  fields: (t) => ({
    id: t.exposeID('id', {
      description: 'Its stream id (`<ms>-<n>`): unique within the queue’s (or group’s) history.',
    }),
    at: t.field({
      type: 'DateTime',
      description: 'When it was recorded (Redis clock).',
      resolve: (e) => new Date(e.at),
    }),
    action: t.exposeString('action', {
      description:
        'setLimit, clearLimit, pause, resume, pauseQueue, resumeQueue, setRetention, requeueDead, removeJobs, purgeGroup, promoteJob, changeJobPriority, repair, and the actions of rates, weights and timed overrides (DESIGN.md §4.6).',
    }),
    group: t.exposeString('group', { description: 'The group acted on; "" for the whole queue.' }),
    actor: t.exposeString('actor', {
      description:
        'Who asked: the token’s name (AUTH_TOKENS `name=role:token`), else its role; `admin` with auth off; the engine’s `actor` option (default `engine`) for calls made without the API.',
    }),
    before: t.field({
      type: 'JSON',
      nullable: true,
      description: 'The state the action changed, before it (e.g. `{ paused }`, counts).',
      resolve: (e) => e.before,
    }),
    after: t.field({
      type: 'JSON',
      nullable: true,
      description: 'The same state after it.',
      resolve: (e) => e.after,
    }),
    detail: t.field({
      type: 'JSON',
      nullable: true,
      description:
        'What the call was asked and answered: counts, the selection, the first few ids (never all of them).',
      resolve: (e) => e.detail,
    }),
  }),
});

const HistoryEdgeRef = builder
  .objectRef<{ cursor: string; node: HistoryEntry }>('HistoryEdge')
  .implement({
    fields: (t) => ({
      cursor: t.exposeString('cursor', {
        description: 'Opaque; pass as `after` for the older entries.',
      }),
      node: t.field({ type: HistoryEntryRef, resolve: (e) => e.node }),
    }),
  });

const HistoryConnectionRef = builder.objectRef<HistoryConnection>('HistoryConnection').implement({
  description:
    'A page of steering history, newest first. A cursor stays good while its entry is kept (the history is capped: HISTORY_MAX_LEN per queue, its groups’ entries included), for its listing (the queue’s, or one group’s): given to another it is BAD_USER_INPUT.',
  fields: (t) => ({
    edges: t.field({ type: [HistoryEdgeRef], resolve: (c) => c.edges }),
    pageInfo: t.field({ type: PageInfoRef, resolve: (c) => c }),
    totalCount: t.exposeInt('totalCount', {
      description:
        'Entries kept in the queue’s history (at most its cap); with `group`, too: an upper bound of that group’s (counting them would read the whole stream).',
    }),
  }),
});

const HistoryBatchRef = builder.objectRef<HistoryBatch>('HistoryBatch').implement({
  description: 'Entries written since the last event this subscriber was sent.',
  fields: (t) => ({
    entries: t.field({
      type: [HistoryEntryRef],
      description: 'Oldest first.',
      resolve: (b) => b.entries,
    }),
    gap: t.exposeBoolean('gap', {
      description:
        'True when more entries were written since the last event than one event carries (100): read `Queue.history` for the rest. With `group`, counted over the queue’s entries (all groups’): some of the group’s may be missing, or none.',
    }),
  }),
});

builder.objectFields(QueueRef, (t) => ({
  history: t.field({
    type: HistoryConnectionRef,
    description:
      'The steering history, newest first: the queue’s every action, O(log n + page); or (`group`) that group’s entries of the queue’s history, read in chunks of 200 until the page (and one more) is found: O(entries scanned), at most HISTORY_MAX_LEN.',
    args: {
      group: t.arg.string({
        description: 'Only this group’s actions (the queue’s entries of it).',
      }),
      first: t.arg.int({ defaultValue: HISTORY_PAGE_SIZE, description: '1..500.' }),
      after: t.arg.string(),
    },
    resolve: (q, args) => resolve.history(q, args),
  }),
}));

builder.subscriptionFields((t) => ({
  historyAdded: t.field({
    type: HistoryBatchRef,
    authScopes: { read: true },
    description:
      'Steering history entries as they are written (the queue’s, or with `group` that group’s): first an event with no entries, once the subscription is live (read `Queue.history` after it and nothing is missed), then one per batch written since the last.',
    args: { queue: t.arg.string({ required: true }), group: t.arg.string() },
    subscribe: (_root, args, ctx) => historyAdded(ctx, args.queue, args.group),
    resolve: (batch) => batch,
  }),
}));
