/**
 * DESIGN.md §5, "Options objects": every options object of the engine's API refuses a name it
 * does not know, and a value that is not an object, with BAD_USER_INPUT naming the path
 * (`options.delay`, with a suggestion when one known name is close), before anything is sent —
 * a misspelt option had been ignored (`{ delay: 60000 }` ran at once, `{ forMS }` set a
 * permanent limit). Each case runs on a brand-new queue: the whole keyspace and `P:queues`
 * stay as they were. An undefined value of a known name stays allowed.
 */
import { describe, expect, it } from 'vitest';
import { ErrorCode, type Queue, Reaper, Ringmaster, Worker } from '../../src/lanes/index.js';
import { Queue as QueueClass } from '../../src/lanes/queue/queue.js';
import { refusal, snapshot, uniqueQueueName, useEngine } from '../support/lanes.js';

const engine = useEngine();
const any = (v: unknown) => v as never;
const noop = async () => undefined;

type Case = [
  name: string,
  call: (q: Queue, rm: Ringmaster) => unknown,
  argument: string,
  message?: RegExp,
];

const SUGGESTS = (name: string) => new RegExp(`is not an option \\(did you mean ${name}\\?\\)`);
const NOT_AN_OBJECT = /must be an object/;

const CASES: Case[] = [
  // enqueue and enqueueMany
  [
    'enqueue delay',
    (q) => q.enqueue('a', {}, any({ delay: 60_000 })),
    'options.delay',
    SUGGESTS('delayMs'),
  ],
  [
    'enqueue maxattempts',
    (q) => q.enqueue('a', {}, any({ maxattempts: 1 })),
    'options.maxattempts',
    SUGGESTS('maxAttempts'),
  ],
  ['enqueue options not an object', (q) => q.enqueue('a', {}, any('x')), 'options', NOT_AN_OBJECT],
  [
    'enqueue backoff field',
    (q) => q.enqueue('a', {}, any({ backoff: { type: 'FIXED', delayMs: 1, jiter: 1 } })),
    'backoff.jiter',
    SUGGESTS('jitter'),
  ],
  [
    'enqueueMany options.delay',
    (q) => q.enqueueMany([{ group: 'a', options: any({ delay: 5 }) }]),
    'jobs[0].options.delay',
    SUGGESTS('delayMs'),
  ],
  [
    'enqueueMany options not an object',
    (q) => q.enqueueMany([{ group: 'a', options: any(5) }]),
    'jobs[0].options',
    NOT_AN_OBJECT,
  ],
  [
    'enqueueMany option beside options',
    (q) => q.enqueueMany([any({ group: 'a', maxAttempts: 0 })]),
    'jobs[0].maxAttempts',
    /give it in options \(options\.maxAttempts\)/,
  ],
  [
    'enqueueMany unknown job field',
    (q) => q.enqueueMany([{ group: 'a' }, any({ group: 'b', paylod: 1 })]),
    'jobs[1].paylod',
    SUGGESTS('payload'),
  ],
  // steering
  [
    'setLimit forMS',
    (q) => q.setLimit('a', 2, any({ forMS: 1_000 })),
    'options.forMS',
    SUGGESTS('forMs'),
  ],
  ['setLimit options not an object', (q) => q.setLimit('a', 2, any(7)), 'options', NOT_AN_OBJECT],
  ['clearLimit', (q) => q.clearLimit('a', any({ actr: 'x' })), 'options.actr', SUGGESTS('actor')],
  ['pause options not an object', (q) => q.pause('a', any('x')), 'options', NOT_AN_OBJECT],
  ['pause', (q) => q.pause('a', any({ for: 5 })), 'options.for', /is not an option/],
  ['resume', (q) => q.resume('a', any({ forms: 5 })), 'options.forms', SUGGESTS('forMs')],
  [
    'setRateLimit rate',
    (q) => q.setRateLimit('a', any({ max: 1, window: 5 })),
    'rateLimit.window',
    SUGGESTS('windowMs'),
  ],
  [
    'setRateLimit options',
    (q) => q.setRateLimit('a', { max: 1, windowMs: 5 }, any({ who: 'x' })),
    'options.who',
  ],
  [
    'clearRateLimit',
    (q) => q.clearRateLimit('a', any({ Actor: 'x' })),
    'options.Actor',
    SUGGESTS('actor'),
  ],
  ['setWeight', (q) => q.setWeight('a', 2, any([])), 'options', NOT_AN_OBJECT],
  ['pauseQueue', (q) => q.pauseQueue(any({ actors: 'x' })), 'options.actors', SUGGESTS('actor')],
  ['resumeQueue', (q) => q.resumeQueue(any('x')), 'options', NOT_AN_OBJECT],
  [
    'setRetention policies',
    (q) => q.setRetention(any({ complete: { count: 0 } })),
    'policies.complete',
    SUGGESTS('completed'),
  ],
  [
    'setRetention policy',
    (q) => q.setRetention(any({ dead: { cout: 0 } })),
    'dead.cout',
    SUGGESTS('count'),
  ],
  ['setRetention options', (q) => q.setRetention({}, any({ x: 1 })), 'options.x'],
  [
    'cancelOverride',
    (q) => q.cancelOverride('a', 'limit', any({ actorr: 'x' })),
    'options.actorr',
    SUGGESTS('actor'),
  ],
  [
    'applyOverrides',
    (q) => q.applyOverrides(any({ batches: 5 })),
    'options.batches',
    SUGGESTS('batch'),
  ],
  ['promote', (q) => q.promote('1', any({ actr: 'x' })), 'options.actr'],
  ['repair', (q) => q.repair(any({ actr: 'x' })), 'options.actr'],
  // jobs and operator actions
  ['claim', (q) => q.claim(any({ lease: 5 })), 'options.lease', SUGGESTS('leaseMs')],
  [
    'completeAndClaim options',
    (q) => q.completeAndClaim([], any({ claims: 1 })),
    'options.claims',
    SUGGESTS('claim'),
  ],
  [
    'completeAndClaim completion',
    (q) => q.completeAndClaim([any({ id: '1', token: 't', tok: 1 })]),
    'completions[0].tok',
    SUGGESTS('token'),
  ],
  ['retry', (q) => q.retry('1', 't', any({ delay: 5 })), 'options.delay', SUGGESTS('delayMs')],
  ['reap', (q) => q.reap(any({ bach: 5 })), 'options.bach', SUGGESTS('batch')],
  ['requeueDead select', (q) => q.requeueDead(any({ group: 'a', state: 'DEAD' })), 'select.state'],
  [
    'requeueDead options',
    (q) => q.requeueDead({ all: true }, any({ reset: false })),
    'options.reset',
    SUGGESTS('resetAttempts'),
  ],
  [
    'requeueDead steering',
    (q) => q.requeueDead({ all: true }, {}, any({ actr: 'x' })),
    'steering.actr',
  ],
  [
    'removeJobs select',
    (q) => q.removeJobs(any({ all: true, state: 'DEAD', grop: 'a' })),
    'select.grop',
    SUGGESTS('group'),
  ],
  [
    'removeJobs options',
    (q) => q.removeJobs({ all: true, state: 'DEAD' }, any({ limt: 1 })),
    'options.limt',
    SUGGESTS('limit'),
  ],
  ['purgeGroup', (q) => q.purgeGroup('a', any({ max: 1 })), 'options.max'],
  // reads
  ['jobs', (q) => q.jobs(any({ state: 'DEAD', frist: 1 })), 'options.frist', SUGGESTS('first')],
  ['groups', (q) => q.groups(any({ perfix: 'a' })), 'options.perfix', SUGGESTS('prefix')],
  ['snapshot', (q) => q.snapshot(any({ id: ['a'] })), 'options.id', SUGGESTS('ids')],
  ['history', (q) => q.history(any({ groups: 'a' })), 'options.groups', SUGGESTS('group')],
  ['metrics', (q) => q.metrics(any({ steps: 5 })), 'options.steps'],
  // constructors and handles
  [
    'Queue',
    (q) => new QueueClass(q.redis, q.name, any({ prefx: 'x' })),
    'options.prefx',
    SUGGESTS('prefix'),
  ],
  [
    'Queue by name, connection misspelt',
    (q) => new QueueClass(q.name, any({ conection: q.redis })),
    'options.conection',
    SUGGESTS('connection'),
  ],
  [
    'Worker by name, connection misspelt',
    (q) => new Worker(q.name, noop, any({ conection: q.redis, autorun: false })),
    'options.conection',
    SUGGESTS('connection'),
  ],
  [
    'Ringmaster',
    (q) => new Ringmaster(q.redis, any({ onscript: noop })),
    'options.onscript',
    SUGGESTS('onScript'),
  ],
  [
    'Ringmaster not an object',
    (q) => new Ringmaster(q.redis, any('emq')),
    'options',
    NOT_AN_OBJECT,
  ],
  [
    'Worker',
    (q) => new Worker(q, noop, any({ concurency: 2, autorun: false })),
    'options.concurency',
    SUGGESTS('concurrency'),
  ],
  [
    'Worker reaper',
    (q) => new Worker(q, noop, any({ autorun: false, reaper: { interval: 5 } })),
    'options.reaper.interval',
    SUGGESTS('intervalMs'),
  ],
  [
    'Worker close',
    (q) => new Worker(q, noop, { autorun: false, reaper: false }).close(any({ timeout: 5 })),
    'options.timeout',
    SUGGESTS('timeoutMs'),
  ],
  [
    'Reaper',
    (_q, rm) => new Reaper(rm, any({ interval: 5 })),
    'options.interval',
    SUGGESTS('intervalMs'),
  ],
];

describe('options objects refuse unknown names and non-objects', () => {
  it.each(CASES)('%s', async (_name, call, argument, message) => {
    const rm = new Ringmaster(engine.client());
    const q = rm.queue(uniqueQueueName('opts'));
    const before = await snapshot(engine.redis());

    const error = await refusal(async () => call(q, rm));
    expect(error.code).toBe(ErrorCode.BAD_USER_INPUT);
    expect(error.argument).toBe(argument);
    expect(error.message).toMatch(message ?? /is not an option/);

    expect(await snapshot(engine.redis())).toEqual(before);
    expect(await q.known()).toBe(false);
  });

  it('an unknown name far from every option lists the options', async () => {
    const q = new Ringmaster(engine.client()).queue(uniqueQueueName('opts'));
    const error = await refusal(() => q.setLimit('a', 1, any({ zzzzzz: 1 })));
    expect(error.message).toBe('options.zzzzzz: is not an option: the options are forMs, actor');
  });

  it("a Queue's options list the connection among them", async () => {
    const q = new Ringmaster(engine.client()).queue(uniqueQueueName('opts'));
    const error = await refusal(
      async () => new QueueClass(q.name, any({ connection: q.redis, zzzzzz: 1 })),
    );
    expect(error.message).toBe(
      'options.zzzzzz: is not an option: the options are connection, prefix, actor, historyMaxLen',
    );
  });

  it('undefined values of known names, and null options, are fine', async () => {
    const q = new Ringmaster(engine.client()).queue(uniqueQueueName('opts'));
    const job = await q.enqueue(
      'a',
      {},
      { delayMs: undefined, key: undefined, maxAttempts: undefined },
    );
    expect(job.state).toBe('PENDING');
    await q.setLimit('a', 1, { forMs: undefined, actor: any(undefined) });
    await q.pause('a', any(null));
    expect(
      await q.enqueueMany([{ group: 'a', payload: undefined, options: undefined }]),
    ).toHaveLength(1);
  });
});
