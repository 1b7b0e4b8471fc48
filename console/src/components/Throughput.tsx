/**
 * Jobs claimed, completed and given back per second over the last minutes, from the
 * `Queue.stats` counters read every few seconds: each point is the difference of two reads over
 * the time between them. "Given back" is retried + reaped: a failed processor's retry and an
 * expired lease taken back by the reaper are counted apart (DESIGN.md §3). Drawn with uPlot.
 */
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { clock, perSecond } from '../format';

/** One read of the counters. */
export interface Sample {
  at: number;
  enqueued: number;
  claimed: number;
  completed: number;
  retried: number;
  reaped: number;
  dead: number;
}

type Counter = 'claimed' | 'completed' | 'givenBack';

/** A sample's value of `counter` (count); givenBack = retried + reaped. */
function count(sample: Sample, counter: Counter): number {
  return counter === 'givenBack' ? sample.retried + sample.reaped : sample[counter];
}

/** The window shown (s): the data's span, at least a minute and at most five. */
const MIN_WINDOW_S = 60;
const WINDOW_S = 300;

/** The latest rate of `counter` (per second), 0 before two reads. */
export function lastRate(samples: Sample[], counter: Counter): number {
  const b = samples.at(-1);
  const a = samples.at(-2);
  if (!a || !b || b.at <= a.at) return 0;
  return Math.max(0, (count(b, counter) - count(a, counter)) / ((b.at - a.at) / 1000));
}

function rates(samples: Sample[]): uPlot.AlignedData {
  const x: number[] = [];
  const series: Record<Counter, number[]> = { claimed: [], completed: [], givenBack: [] };
  for (let i = 1; i < samples.length; i += 1) {
    const a = samples[i - 1] as Sample;
    const b = samples[i] as Sample;
    const seconds = (b.at - a.at) / 1000;
    if (seconds <= 0) continue;
    x.push(b.at / 1000);
    for (const key of ['claimed', 'completed', 'givenBack'] as const) {
      // A counter never goes down; if it did (queue deleted and recreated), show 0, not < 0.
      series[key].push(Math.max(0, (count(b, key) - count(a, key)) / seconds));
    }
  }
  return [x, series.claimed, series.completed, series.givenBack];
}

const css = (name: string): string =>
  getComputedStyle(document.documentElement).getPropertyValue(name).trim();

export function Throughput(props: { samples: Sample[] }) {
  const { samples } = props;
  const box = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);

  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const axis = {
      stroke: css('--muted'),
      grid: { stroke: css('--grid'), width: 1 },
      ticks: { stroke: css('--grid'), width: 1 },
      font: '11px system-ui, sans-serif',
    };
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
              const now = Date.now() / 1000;
              const first = (u.data[0]?.[0] as number | undefined) ?? now;
              const span = Math.min(WINDOW_S, Math.max(MIN_WINDOW_S, now - first));
              return [now - span, now];
            },
          },
          y: { range: (_u, _min, max) => [0, Math.max(1, max * 1.15)] },
        },
        axes: [
          { ...axis, space: 55, values: (_u, ticks) => ticks.map((t) => clock(t * 1000)) },
          { ...axis, size: 42, values: (_u, ticks) => ticks.map((t) => perSecond(t)) },
        ],
        series: [
          {},
          { label: 'claimed/s', stroke: css('--series-1'), width: 1.6, points: { show: false } },
          {
            label: 'completed/s',
            stroke: css('--series-2'),
            width: 1.6,
            points: { show: false },
          },
          {
            label: 'retried + reaped/s',
            stroke: css('--series-3'),
            width: 1.2,
            dash: [4, 3],
            points: { show: false },
          },
        ],
      },
      [[], [], [], []],
      el,
    );
    plot.current = chart;
    const resize = new ResizeObserver(() => {
      if (el.clientWidth > 0) chart.setSize({ width: el.clientWidth, height: 150 });
    });
    resize.observe(el);
    return () => {
      resize.disconnect();
      chart.destroy();
      plot.current = null;
    };
  }, []);

  useEffect(() => {
    plot.current?.setData(rates(samples));
  }, [samples]);

  return (
    <section class="panel">
      <div class="panel-head">
        <h2>Throughput</h2>
        <span class="muted small">jobs per second, up to the last 5 minutes</span>
      </div>
      <div class="chart" ref={box} data-testid="throughput" />
      {samples.length < 2 && <p class="muted small pad">collecting… (two reads make a rate)</p>}
    </section>
  );
}
