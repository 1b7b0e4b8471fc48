/** The chosen queue's totals and current rates, in one dense strip. */
import { n, perSecond } from '../format';
import type { CountsFragment } from '../gql/graphql';
import { lastRate, type Sample } from './Throughput';

export function Kpis(props: {
  counts: CountsFragment | null;
  samples: Sample[];
  /** The live ring's length (fresher than `counts.onRing`), once known. */
  onRing: number | null;
}) {
  const { counts, samples, onRing } = props;
  const items: [string, string, (string | undefined)?][] = counts
    ? [
        ['groups', n(counts.groups)],
        ['on ring', n(onRing ?? counts.onRing), 'ring'],
        ['paused', n(counts.paused), counts.paused > 0 ? 'paused' : undefined],
        ['at limit', n(counts.saturated), counts.saturated > 0 ? 'limit' : undefined],
        ['pending', n(counts.pending)],
        ['active', n(counts.active)],
        ['dead', n(counts.dead), counts.dead > 0 ? 'bad' : undefined],
        ['claimed/s', perSecond(lastRate(samples, 'claimed'))],
        ['completed/s', perSecond(lastRate(samples, 'completed'))],
      ]
    : [];
  return (
    <dl class="kpis" data-testid="kpis">
      {items.map(([label, value, tone]) => (
        <div class={`kpi${tone ? ` kpi-${tone}` : ''}`} key={label}>
          <dt>{label}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}
