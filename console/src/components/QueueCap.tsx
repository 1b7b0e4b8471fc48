/**
 * The queue's cap beside its controls (DESIGN.md §3, "The queue's cap and reserves"): the jobs
 * in flight of the cap ("cap 3 / 5", or "no cap"), read again with every snapshot, and a timed
 * cap's pending revert ("Cap 2 for 5 more minutes, then 10": `Queue.limitOverride`, §4.8,
 * counted down on the Redis clock as a group's timed limit is); an admin may set it or clear it
 * (either drops a pending revert). Done only once a read shows it (`useAction`); a refusal (a
 * cap below the sum of the reserves) is shown in words.
 */
import { useEffect, useState } from 'preact/hooks';
import { useAction } from '../action';
import { answered, request } from '../api';
import { countProblem } from '../cap';
import { n } from '../format';
import {
  ClearQueueCapDocument,
  QueueCapReadDocument,
  type QueueCapReadQuery,
  SetQueueCapDocument,
} from '../gql/graphql';
import { capOverrideText } from '../overrides';
import { CountInput } from './CountInput';

type Cap = QueueCapReadQuery['queue'];

export function QueueCap(props: {
  queue: string;
  /** The snapshot's moment: a new one reads the cap again. */
  at: number | null;
  admin: boolean;
  refresh: () => void;
  /** This browser's clock minus the Redis clock (ms), and now on this browser's clock. */
  skew: number;
  now: number;
}) {
  const { queue, at, admin, refresh, skew, now } = props;
  const [cap, setCap] = useState<Cap | null>(null);
  const [text, setText] = useState('');
  const action = useAction();

  useEffect(() => {
    let live = true;
    request(QueueCapReadDocument, { queue })
      .then((read) => live && setCap(read.queue))
      .catch(() => {});
    return () => {
      live = false;
    };
  }, [queue, at]);

  const change = (limit: number | null) =>
    action.run(
      limit === null ? 'Clearing the cap' : `Setting the cap to ${n(limit)}`,
      async () => {
        if (limit === null) {
          answered(
            (await request(ClearQueueCapDocument, { queue })).clearQueueLimit,
            'clearQueueLimit',
          );
        } else {
          answered(
            (await request(SetQueueCapDocument, { queue, limit })).setQueueLimit,
            'setQueueLimit',
          );
        }
        setText('');
        return limit === null ? 'No cap' : `Cap ${n(limit)}`;
      },
      async () => {
        const read = (await request(QueueCapReadDocument, { queue })).queue;
        setCap(read);
        return read.limit === limit
          ? limit === null
            ? 'Redis shows no cap.'
            : `Redis shows cap ${n(limit)}.`
          : null;
      },
      refresh,
    );

  const submit = (event: Event) => {
    event.preventDefault();
    const problem = countProblem('cap', text);
    if (problem) {
      action.say({ kind: 'error', text: problem });
      return;
    }
    void change(Number(text.trim()));
  };

  if (cap === null) return null;
  const full = cap.limit !== null && cap.active >= cap.limit;
  const revert = cap.limitOverride;
  const redisNow = Math.max(now, Date.now()) - skew;
  return (
    <div class="queue-control queue-cap" data-testid="queue-cap">
      <span
        class={`pill${full ? ' is-paused' : ''}`}
        data-testid="queue-cap-value"
        title="The most jobs of the whole queue in flight at once; the groups' reserves are served first while permits are scarce."
      >
        {cap.limit === null
          ? `no cap (${n(cap.active)} in flight)`
          : `cap ${n(cap.active)} / ${n(cap.limit)}${cap.reserved > 0 ? `, reserves ${n(cap.reserved)}` : ''}`}
      </span>
      {revert && (
        <span
          class="timed-override"
          data-testid="queue-cap-override"
          title={`Reverts at ${revert.until}; setting or clearing the cap drops the revert.`}
        >
          {capOverrideText(
            Date.parse(String(revert.until)) - redisNow,
            cap.limit,
            revert.revertToLimit ?? null,
          )}
          .
        </span>
      )}
      {admin && (
        <form class="limit-form" onSubmit={submit}>
          <CountInput
            min={0}
            placeholder={cap.limit === null ? 'cap' : String(cap.limit)}
            label="New cap"
            value={text}
            onValue={setText}
          />
          <button type="submit" class="btn" disabled={action.busy}>
            Set cap
          </button>
          <button
            type="button"
            class="btn btn-ghost"
            disabled={action.busy || cap.limit === null}
            onClick={() => void change(null)}
          >
            Clear cap
          </button>
        </form>
      )}
      {action.outcome && (
        <span
          class={`outcome-inline outcome-${action.outcome.kind}`}
          role="status"
          data-testid="queue-cap-outcome"
        >
          {action.outcome.text}
        </span>
      )}
    </div>
  );
}
