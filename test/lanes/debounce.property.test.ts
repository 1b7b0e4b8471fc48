/**
 * Property test of debounce, replace-until-started (DESIGN.md §3, "Debounce"): random sequences
 * of debounced enqueues (one by one and in enqueueMany batches, to a key's own group or to
 * another), plain enqueues, promotions of a key's job, claims and removals, driven against a
 * model that keeps, per key, its waiting job (id, group, newest payload). After every step:
 * - at most one PENDING or DELAYED job carries each key, and it is the model's, with the newest
 *   payload enqueued with the key since its job was made;
 * - an enqueue answers the model's job while one waits, a new job otherwise, and is refused
 *   (BAD_USER_INPUT `debounce.key`) when the key's job waits in another group;
 * - a claimed job is no longer its key's;
 * and at the end `Queue.audit()` reports nothing.
 *
 * Replay: FC_SEED=<seed> FC_PATH=<path> npx vitest run test/lanes/debounce.property.test.ts
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type Job, Queue, RingmasterError } from '../../src/lanes/index.js';
import { uniqueQueueName, useEngine } from '../support/lanes.js';

const KEYS = ['k0', 'k1', 'k2'] as const;
const GROUPS = ['a', 'b'] as const;
const RUNS = process.env.FC_NUM_RUNS ? Number(process.env.FC_NUM_RUNS) : 40;
const WINDOW = 600_000;

type Step =
  | { kind: 'debounce'; key: number; group: number; payload: number }
  | { kind: 'many'; jobs: { key: number | null; group: number; payload: number }[] }
  | { kind: 'plain'; group: number }
  | { kind: 'promote'; key: number }
  | { kind: 'remove'; key: number }
  | { kind: 'claim' };

const key = fc.integer({ min: 0, max: KEYS.length - 1 });
const group = fc.integer({ min: 0, max: GROUPS.length - 1 });
const payload = fc.integer({ min: 0, max: 1_000 });
const stepArb: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({ kind: fc.constant('debounce' as const), key, group, payload }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('many' as const),
      jobs: fc.array(fc.record({ key: fc.option(key, { nil: null }), group, payload }), {
        minLength: 1,
        maxLength: 4,
      }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('plain' as const), group }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('promote' as const), key }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('remove' as const), key }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('claim' as const) }) },
);

interface Waiting {
  id: string;
  group: string;
  payload: number;
}

const engine = useEngine();

async function refusedArgument(call: () => Promise<unknown>): Promise<string | undefined> {
  try {
    await call();
  } catch (error) {
    if (error instanceof RingmasterError) return error.argument;
    throw error;
  }
  return undefined;
}

async function run(steps: Step[]): Promise<void> {
  const q = new Queue(engine.redis(), uniqueQueueName('debounce'));
  const waiting = new Map<string, Waiting>();
  const ids = new Set<string>();
  const debounce = (k: number) => ({ debounce: { key: KEYS[k] as string, windowMs: WINDOW } });

  for (const step of steps) {
    switch (step.kind) {
      case 'debounce': {
        const name = KEYS[step.key] as string;
        const g = GROUPS[step.group] as string;
        const live = waiting.get(name);
        if (live && live.group !== g) {
          expect(await refusedArgument(() => q.enqueue(g, step.payload, debounce(step.key)))).toBe(
            'debounce.key',
          );
          break;
        }
        const job = await q.enqueue(g, step.payload, debounce(step.key));
        if (live) expect(job.id).toBe(live.id);
        else expect(ids.has(job.id)).toBe(false);
        ids.add(job.id);
        waiting.set(name, { id: job.id, group: g, payload: step.payload });
        break;
      }
      case 'many': {
        // The model's view after the call, were it accepted: in input order.
        const after = new Map(waiting);
        let refused = false;
        for (const j of step.jobs) {
          if (j.key === null) continue;
          const name = KEYS[j.key] as string;
          const live = after.get(name);
          if (live && live.group !== GROUPS[j.group]) refused = true;
          after.set(name, {
            id: live?.id ?? '',
            group: live?.group ?? (GROUPS[j.group] as string),
            payload: j.payload,
          });
        }
        const call = () =>
          q.enqueueMany(
            step.jobs.map((j) => ({
              group: GROUPS[j.group] as string,
              payload: j.payload,
              options: j.key === null ? {} : debounce(j.key),
            })),
          );
        if (refused) {
          expect(await refusedArgument(call)).toMatch(/^jobs\[\d+\]\.debounce\.key$/);
          break;
        }
        const jobs: Job[] = await call();
        step.jobs.forEach((j, i) => {
          const job = jobs[i] as Job;
          if (j.key === null) {
            ids.add(job.id);
            return;
          }
          const name = KEYS[j.key] as string;
          const model = after.get(name) as Waiting;
          if (model.id === '') model.id = job.id;
          expect(job.id).toBe(model.id);
          ids.add(job.id);
        });
        for (const [name, w] of after) waiting.set(name, w);
        break;
      }
      case 'plain':
        ids.add((await q.enqueue(GROUPS[step.group] as string, 'plain')).id);
        break;
      case 'promote': {
        const live = waiting.get(KEYS[step.key] as string);
        if (live) await q.promote(live.id);
        break;
      }
      case 'remove': {
        const name = KEYS[step.key] as string;
        const live = waiting.get(name);
        if (live) {
          await q.removeJobs({ ids: [live.id] });
          waiting.delete(name);
        }
        break;
      }
      case 'claim': {
        const job = await q.claim();
        if (job) {
          for (const [name, w] of waiting) if (w.id === job.id) waiting.delete(name);
        }
        break;
      }
    }

    // At most one waiting job per key, the model's, holding the newest payload.
    const jobs = (await Promise.all([...ids].map((id) => q.job(id)))).filter(
      (j): j is Job => j !== null,
    );
    for (const name of KEYS) {
      const carrying = jobs.filter(
        (j) => j.debounceKey === name && (j.state === 'PENDING' || j.state === 'DELAYED'),
      );
      const model = waiting.get(name);
      expect(
        carrying.map((j) => [j.id, j.group, j.payload]),
        `key ${name}`,
      ).toEqual(model ? [[model.id, model.group, model.payload]] : []);
    }
  }
  expect((await q.audit()).findings).toEqual([]);
}

describe('debounce: replace until started', () => {
  it('holds for random steps', async () => {
    const params: fc.Parameters<[Step[]]> = { numRuns: RUNS };
    if (process.env.FC_SEED !== undefined) params.seed = Number(process.env.FC_SEED);
    if (process.env.FC_PATH !== undefined) params.path = process.env.FC_PATH;
    await fc.assert(
      fc.asyncProperty(fc.array(stepArb, { minLength: 1, maxLength: 25 }), run),
      params,
    );
  });
});
