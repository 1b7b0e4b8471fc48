/**
 * `src/pubsub`: keyspace notifications → the live feed behind the `ringChanged`, `groupChanged`
 * and `jobChanged` subscriptions (DESIGN.md §4, §6). Knows nothing of GraphQL.
 */

export { HISTORY_WINDOW, type HistoryBatch } from './historyWatch.js';
export type { WatchedJob } from './jobWatch.js';
export {
  DEFAULT_MAX_REREADS_PER_SECOND,
  DEFAULT_MAX_WATCHES,
  LiveFeed,
  type LiveFeedOptions,
  type LiveFeedStats,
} from './liveFeed.js';
export { NEEDED_FLAGS } from './notifyConfig.js';
export type { ResyncReason, RingChange, RingChangeReason, RingNeed } from './ringWatch.js';
export type { FeedMode } from './source.js';
