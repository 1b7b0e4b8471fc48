/**
 * Jobs claimed, completed and given back per second over the last hour. It opens with the
 * server's history (`Queue.throughput(minutes: 60)`, DESIGN.md §3 "Throughput history"): each
 * complete minute before the chart opened is drawn as that minute's average rate, from the
 * first minute of the hour that had any event. From then on it adds the live rates of the
 * `Queue.stats` counters of the console's snapshots: each point is the difference of two reads
 * over the time between them (Redis clock). "Given back" is retried + reaped live (a failed
 * processor's retry and an expired lease taken back by the reaper, counted apart, DESIGN.md §3)
 * and the history's `failed` (the same failed attempts, a retry that killed its job included).
 * Drawn with uPlot. Where live reads are missing (the server was down, the tab hidden) the lines
 * break: a rate over a long silence is not data.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { request } from '../api';
import { clock, perSecond } from '../format';
import { QueueThroughputDocument } from '../gql/graphql';
import { PULSE_MS, type Sample } from '../hooks';
import { type HistoryRate, historyRates } from '../throughput';

type Counter = 'claimed' | 'completed' | 'givenBack';

/** A sample's value of `counter` (count); givenBack = retried + reaped. */
function count(sample: Sample, counter: Counter): number {
  return counter === 'givenBack' ? sample.retried + sample.reaped : sample[counter];
}

/** The window shown (s): the data's span, at least a minute and at most an hour. */
const MIN_WINDOW_S = 60;
const WINDOW_S = 3_600;
/** The minutes of server history the chart opens with (`Queue.throughput`). */
const HISTORY_MINUTES = 60;

/** The latest rate of `counter` (per second); null before two reads or after a gap. */
export function lastRate(samples: Sample[], counter: Counter): number | null {
  const b = samples.at(-1);
  const a = samples.at(-2);
  if (!a || !b || b.at <= a.at || b.at - a.at > GAP_MS) return null;
  return Math.max(0, (count(b, counter) - count(a, counter)) / ((b.at - a.at) / 1000));
}

/**
 * Two reads further apart than this (ms) have no data between them: the rate over that span is
 * not drawn (null), so the lines break instead of sloping across an outage.
 */
export const GAP_MS = 3 * PULSE_MS + 1_000;

/**
 * The history's rates, then the rates between successive samples after it; null where two
 * reads are more than GAP_MS apart.
 */
function rates(samples: Sample[], history: readonly HistoryRate[]): uPlot.AlignedData {
  const x: number[] = [];
  const series: Record<Counter, (number | null)[]> = { claimed: [], completed: [], givenBack: [] };
  const until = history.at(-1)?.at ?? Number.NEGATIVE_INFINITY;
  for (const h of history) {
    x.push(h.at / 1000);
    for (const key of ['claimed', 'completed', 'givenBack'] as const) series[key].push(h[key]);
  }
  for (let i = 1; i < samples.length; i += 1) {
    const a = samples[i - 1] as Sample;
    const b = samples[i] as Sample;
    const ms = b.at - a.at;
    // A live rate over a span the history already drew is left out: one line, not two.
    if (ms <= 0 || a.at < until) continue;
    x.push(b.at / 1000);
    for (const key of ['claimed', 'completed', 'givenBack'] as const) {
      // A counter never goes down; if it did (queue deleted and recreated), show 0, not < 0.
      series[key].push(
        ms > GAP_MS ? null : Math.max(0, (count(b, key) - count(a, key)) / (ms / 1000)),
      );
    }
  }
  return [x, series.claimed, series.completed, series.givenBack];
}

/**
 * The spans with no data, as [from, to] in seconds (Redis clock): from the last point drawn
 * before a break to the first after it. Put on the chart element (`data-gaps`) so a test can
 * find them, with their pixel columns on the canvas (`data-gap-px`).
 */
function gaps(data: uPlot.AlignedData): [number, number][] {
  const xs = data[0] as number[];
  const ys = data[1] as (number | null)[];
  const found: [number, number][] = [];
  for (let i = 0; i < xs.length; i += 1) {
    if (ys[i] !== null) continue;
    let from = i - 1;
    while (from >= 0 && ys[from] === null) from -= 1;
    let to = i + 1;
    while (to < xs.length && ys[to] === null) to += 1;
    const start = from >= 0 ? (xs[from] as number) : (xs[i] as number);
    const end = to < xs.length ? (xs[to] as number) : (xs[i] as number);
    if (found.at(-1)?.[0] !== start) found.push([start, end]);
  }
  return found;
}

const css = (name: string): string =>
  getComputedStyle(document.documentElement).getPropertyValue(name).trim();

export function Throughput(props: {
  /** The queue whose history the chart opens with. */
  queue: string;
  samples: Sample[];
  /** This browser's clock minus the Redis clock (ms), so "now" is on the samples' clock. */
  skew: number;
}) {
  const { queue, samples, skew } = props;
  const box = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  const [history, setHistory] = useState<HistoryRate[]>([]);
  const latest = useRef({ samples, skew, history });
  latest.current = { samples, skew, history };

  // The last hour from the server, read once when the chart opens on a queue: the live rates go
  // on from there. A refused read leaves the chart live only, as before there was a history.
  useEffect(() => {
    let current = true;
    setHistory([]);
    request(QueueThroughputDocument, { queue, minutes: HISTORY_MINUTES })
      .then((data) => {
        if (current) setHistory(historyRates(data.queue.throughput));
      })
      .catch(() => {});
    return () => {
      current = false;
    };
  }, [queue]);

  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const axis = {
      stroke: css('--muted'),
      grid: { stroke: css('--grid'), width: 1 },
      ticks: { stroke: css('--grid'), width: 1 },
      font: '11px system-ui, sans-serif',
    };
    const line = { width: 1.6, points: { show: false }, spanGaps: false };
    const chart = new uPlot(
      {
        width: el.clientWidth || 320,
        height: 150,
        padding: [8, 22, 0, 0],
        legend: { show: true, live: false },
        cursor: { drag: { x: false, y: false }, points: { size: 5 } },
        scales: {
          // Up to now, over the data's span (one to five minutes): it fills in from the right.
          x: {
            time: true,
            range: (u) => {
              const now = (Date.now() - latest.current.skew) / 1000;
              const first = (u.data[0]?.[0] as number | undefined) ?? now;
              const span = Math.min(WINDOW_S, Math.max(MIN_WINDOW_S, now - first));
              return [now - span, now];
            },
          },
          y: { range: (_u, _min, max) => [0, Math.max(1, (max ?? 0) * 1.15)] },
        },
        axes: [
          { ...axis, space: 55, values: (_u, ticks) => ticks.map((t) => clock(t * 1000)) },
          { ...axis, size: 42, values: (_u, ticks) => ticks.map((t) => perSecond(t)) },
        ],
        series: [
          {},
          { ...line, label: 'claimed/s', stroke: css('--series-1') },
          { ...line, label: 'completed/s', stroke: css('--series-2') },
          {
            ...line,
            label: 'retried + reaped/s',
            stroke: css('--series-3'),
            width: 1.2,
            dash: [4, 3],
          },
        ],
        hooks: {
          // Where the lines break, in seconds and in canvas pixels (for tests and tooltips).
          draw: [
            (u) => {
              const spans = gaps(u.data);
              el.dataset.points = String(u.data[0].length);
              el.dataset.history = String(latest.current.history.length);
              el.dataset.from = String(u.scales.x?.min ?? '');
              el.dataset.gaps = JSON.stringify(spans);
              el.dataset.gapPx = JSON.stringify(
                spans.map(([a, b]) => [u.valToPos(a, 'x', true), u.valToPos(b, 'x', true)]),
              );
            },
          ],
        },
      },
      [[], [], [], []],
      el,
    );
    plot.current = chart;
    const resize = new ResizeObserver(() => {
      if (el.clientWidth > 0) chart.setSize({ width: el.clientWidth, height: 150 });
    });
    resize.observe(el);
    // Time moves on when no read arrives (the server is down): keep "now" at the right edge.
    const timer = setInterval(
      () => chart.setData(rates(latest.current.samples, latest.current.history)),
      PULSE_MS,
    );
    return () => {
      clearInterval(timer);
      resize.disconnect();
      chart.destroy();
      plot.current = null;
    };
  }, []);

  useEffect(() => {
    plot.current?.setData(rates(samples, history));
  }, [samples, history]);

  return (
    <section class="panel">
      <div class="panel-head">
        <h2>Throughput</h2>
        <span class="muted small">
          jobs per second, up to the last hour (minute averages, then live); gaps: no data
        </span>
      </div>
      <div class="chart" ref={box} data-testid="throughput" />
      {samples.length < 2 && history.length === 0 && (
        <p class="muted small pad">collecting… (two reads make a rate)</p>
      )}
    </section>
  );
}
