/**
 * A subscription that no result processor takes — asked over HTTP with an `Accept` that names
 * no event stream (`application/json`, say) — is answered 406 by Yoga after it has subscribed:
 * nothing would ever end its stream, so its live-feed watch (one of MAX_WATCHES, DESIGN.md §4)
 * and its listener would stay for the server's life, and a read token could use up the watches
 * with a few requests. This hook ends such a stream at once (`return()` reaches the live feed,
 * which releases the watch). Yoga runs its own result processors before any plugin given in
 * `plugins`, so `resultProcessor` is already chosen when this hook sees it.
 */
import { isAsyncIterable, type Plugin } from 'graphql-yoga';

/** The Yoga plugin; any place in Ringmaster's `plugins` (none of them sets a result processor). */
export function useEndUnprocessedStreams(): Plugin {
  return {
    onResultProcess({ result, resultProcessor }) {
      if (resultProcessor !== undefined || !isAsyncIterable(result)) return;
      void result[Symbol.asyncIterator]().return?.();
    },
  };
}
