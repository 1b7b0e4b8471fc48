/**
 * The chosen queue's totals, from the same snapshot as every other panel (so "on ring" here is
 * the ring drawn below), and the current rates from the last two counter reads.
 */
import { n, perSecond } from '../format';
import type { CountsFragment } from '../gql/graphql';
import type { Sample } from '../hooks';
import { lastRate } from './Throughput';

const rateText = (value: number | null): string => (value === null ? '–' : perSecond(value));

export function Kpis(props: { counts: CountsFragment | null; samples: Sample[] }) {
  const { counts, samples } = props;
  const items: [
    key: string,
    label: string,
    value: string,
    tone?: string | undefined,
    title?: string,
  ][] = counts
    ? [
        ['groups', 'groups', n(counts.groups)],
        ['on-ring', 'on ring', n(counts.onRing), 'ring', 'waiting for a turn'],
        ['paused', 'paused', n(counts.paused), counts.paused > 0 ? 'paused' : undefined],
        [
          'at-limit',
          'limit reached',
          n(counts.saturated),
          counts.saturated > 0 ? 'limit' : undefined,
          'groups whose limit is reached: the "at limit" and "parked" ones, paused ones too',
        ],
        ['pending', 'pending', n(counts.pending), undefined, 'jobs waiting'],
        ['active', 'active', n(counts.active), undefined, 'jobs in flight'],
        [
          'delayed',
          'delayed',
          n(counts.delayed),
          undefined,
          'jobs waiting for their run-at time: enqueued with a delay, or a failed attempt waiting its backoff',
        ],
        [
          'dead',
          'dead',
          n(counts.dead),
          counts.dead > 0 ? 'bad' : undefined,
          'jobs that used up their attempts, as retained (the Dead view lists them)',
        ],
        [
          'completed',
          'completed (kept)',
          n(counts.completed),
          undefined,
          'completed jobs kept by the retention policy (not every job ever completed)',
        ],
        ['claimed-rate', 'claimed/s', rateText(lastRate(samples, 'claimed'))],
        ['completed-rate', 'completed/s', rateText(lastRate(samples, 'completed'))],
      ]
    : [];
  return (
    <dl class="kpis" data-testid="kpis">
      {items.map(([key, label, value, tone, title]) => (
        <div class={`kpi${tone ? ` kpi-${tone}` : ''}`} key={key} title={title}>
          <dt>{label}</dt>
          <dd data-kpi={key}>{value}</dd>
        </div>
      ))}
    </dl>
  );
}
