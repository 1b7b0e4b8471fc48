/**
 * The subscriber process of section 4 (forked by `fanout.ts`, never run alone): it holds the
 * graphql-ws subscribers — one WebSocket each, as separate admin UIs would — and measures, per
 * round, the time from sending a mutation that changes the ring to each subscriber's CHANGE
 * event. Sending and receiving happen in this one process, so both ends read the same clock.
 *
 * Messages from the parent (IPC):
 *   { type: 'open', count }                   add subscribers until there are `count`
 *   { type: 'rounds', rounds, gapMs }         run the rounds; answers with the latencies
 *   { type: 'close' }                         close every client and exit
 */
import { WebSocket } from 'ws';

interface Setup {
  url: string;
  queue: string;
  group: string;
}

type Command =
  | { type: 'open'; count: number }
  | { type: 'rounds'; rounds: number; gapMs: number }
  | { type: 'close' };

export type Reply =
  | { type: 'opened'; count: number; ms: number }
  | {
      type: 'measured';
      /** ms from mutation send to each subscriber's event, all rounds together */
      latencies: number[];
      /**
       * subscriber-rounds without the round's change within the round timeout (a message that
       * names the group in the round's list but does not parse as its change counts too)
       */
      missed: number;
      /** ms from mutation send to its HTTP response, per round */
      mutationMs: number[];
      /** this process' CPU (user + sys) during the rounds, µs */
      cpuUsec: number;
    }
  | { type: 'error'; message: string };

const ROUND_TIMEOUT_MS = 5_000;
const OPEN_BATCH = 50;

const setup = JSON.parse(process.argv[2] ?? '{}') as Setup;
const wsUrl = `${setup.url.replace(/^http/, 'ws')}/graphql`;
const subscription = `subscription { ringChanged(queue: "${setup.queue}") { ring added removed reason } }`;
const subscribeMessage = JSON.stringify({
  id: '1',
  type: 'subscribe',
  payload: { query: subscription },
});

interface Subscriber {
  dispose(): void;
}

interface RingChange {
  ring: string[];
  added: string[];
  removed: string[];
  reason: string;
}

const subscribers: Subscriber[] = [];
/**
 * The round in progress: when its mutation was sent, and each subscriber's first message since
 * (arrival time and bytes, parsed only once the round is over).
 */
let round: {
  sentAt: number;
  /** `"removed":[` (a pause) or `"added":[` (a resume): where the round's change names the group. */
  listKey: Buffer;
  arrivedAt: Float64Array;
  messages: (Buffer | undefined)[];
  arrived: number;
} | null = null;
let roundDone: (() => void) | null = null;

function send(reply: Reply): void {
  process.send?.(reply);
}

/**
 * A message in a round is timed on arrival and kept unparsed: parsing it here would delay the
 * arrival of the next (the sockets share this one thread), and this process would measure its
 * own JSON work on top of the server's delivery.
 */
function onRoundMessage(index: number, data: Buffer): void {
  const at = performance.now();
  const r = round;
  if (r === null || r.messages[index] !== undefined || !namesGroupIn(data, r.listKey)) return;
  r.arrivedAt[index] = at;
  r.messages[index] = data;
  if (++r.arrived === subscribers.length) roundDone?.();
}

const groupJson = Buffer.from(JSON.stringify(setup.group));

/**
 * Whether `data` names the group in its list after `listKey` — a byte search, not a parse: a
 * change of an earlier round that came late (its group in the other list) is not this round's,
 * and does not take this subscriber's place in it. {@link judgeRound} parses what is kept.
 */
function namesGroupIn(data: Buffer, listKey: Buffer): boolean {
  const list = data.indexOf(listKey);
  if (list < 0) return false;
  const found = data.indexOf(groupJson, list + listKey.length);
  return found >= 0 && found < data.indexOf(0x5d /* ] */, list + listKey.length);
}

/**
 * The latencies of a round's messages that carry its change (the group `removed` by a pause,
 * `added` by a resume); a subscriber whose message is anything else counts as missed.
 */
function judgeRound(
  r: NonNullable<typeof round>,
  expect: 'added' | 'removed',
  latencies: number[],
): number {
  let missed = 0;
  for (let index = 0; index < r.messages.length; index++) {
    const data = r.messages[index];
    const change = data === undefined ? undefined : parseNext(data);
    if (change === undefined || !change[expect].includes(setup.group)) missed++;
    else latencies.push((r.arrivedAt[index] ?? Number.NaN) - r.sentAt);
  }
  return missed;
}

function parseNext(data: Buffer): RingChange | undefined {
  const message = JSON.parse(data.toString()) as {
    type: string;
    payload?: { data?: { ringChanged?: RingChange } };
  };
  const change = message.payload?.data?.ringChanged;
  return message.type === 'next' && change?.reason !== 'SNAPSHOT' ? change : undefined;
}

/**
 * One subscriber: a WebSocket speaking graphql-transport-ws by hand (connection_init, subscribe,
 * then `next` messages), resolved at its SNAPSHOT. Not graphql-ws' client: its per-message cost
 * (~30 µs: parse, validate, dispatch through its sinks) made the subscriber process, not the
 * server, the bound at a few thousand subscribers on 2 cores; this one JSON-parses each message
 * and nothing else, and in a round not even that until the round is over ({@link onRoundMessage}),
 * so the server's work dominates what is measured. Pings are answered by `ws`.
 */
function subscribe(index: number): Promise<Subscriber> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(wsUrl, 'graphql-transport-ws', {
      perMessageDeflate: false,
      // The server's frames are its own JSON; checking their UTF-8 here is this process' work, not its.
      skipUTF8Validation: true,
    });
    let first = true;
    socket.on('open', () => socket.send('{"type":"connection_init"}'));
    socket.on('message', (data: Buffer) => {
      if (!first && round !== null) {
        onRoundMessage(index, data);
        return;
      }
      const message = JSON.parse(data.toString()) as {
        type: string;
        payload?: { data?: { ringChanged?: RingChange } };
      };
      if (message.type === 'connection_ack') {
        socket.send(subscribeMessage);
        return;
      }
      if (message.type === 'pong') return;
      if (message.type === 'ping') {
        socket.send('{"type":"pong"}');
        return;
      }
      const change = message.payload?.data?.ringChanged;
      if (message.type !== 'next' || change === undefined) {
        reject(new Error(`subscriber ${index}: unexpected ${data.toString().slice(0, 200)}`));
        socket.terminate();
        return;
      }
      if (first) {
        first = false;
        resolve({ dispose: () => socket.close(1000) });
      }
      // A change between rounds (none is made) is not timed.
    });
    socket.on('error', (error) => reject(error));
    socket.on('close', (code) => {
      if (first)
        reject(new Error(`subscriber ${index}: socket closed (${code}) before its snapshot`));
    });
  });
}

async function open(count: number): Promise<void> {
  const t0 = performance.now();
  while (subscribers.length < count) {
    const n = Math.min(OPEN_BATCH, count - subscribers.length);
    const start = subscribers.length;
    subscribers.push(
      ...(await Promise.all(Array.from({ length: n }, (_, i) => subscribe(start + i)))),
    );
  }
  send({ type: 'opened', count: subscribers.length, ms: performance.now() - t0 });
}

/**
 * POST the round's mutation; once more if the connection fails. A round at 5,000 subscribers
 * on a loaded machine can outlast the server's 5 s keep-alive timeout, and fetch may then reuse
 * the connection the server is closing. Pausing or resuming twice changes the ring once.
 */
async function mutate(mutation: string): Promise<Response> {
  const send = () =>
    fetch(`${setup.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ query: mutation }),
    });
  try {
    return await send();
  } catch {
    return send();
  }
}

async function rounds(count: number, gapMs: number): Promise<void> {
  const latencies: number[] = [];
  const mutationMs: number[] = [];
  let missed = 0;
  const cpu0 = process.cpuUsage();
  for (let k = 0; k < count; k++) {
    // Alternate: pause drops the group from the ring, resume puts it back at the tail.
    const pause = k % 2 === 0;
    const mutation = `mutation { ${pause ? 'pauseGroup' : 'resumeGroup'}(queue: "${setup.queue}", group: "${setup.group}") { id } }`;
    const finished = new Promise<void>((resolve) => {
      roundDone = resolve;
    });
    const timeout = new Promise<void>((resolve) => setTimeout(resolve, ROUND_TIMEOUT_MS).unref());
    const r = {
      sentAt: performance.now(),
      listKey: Buffer.from(pause ? '"removed":[' : '"added":['),
      arrivedAt: new Float64Array(subscribers.length),
      messages: new Array<Buffer | undefined>(subscribers.length),
      arrived: 0,
    };
    round = r;
    const sentAt = r.sentAt;
    const res = await mutate(mutation);
    await res.text();
    if (!res.ok) throw new Error(`mutation failed with HTTP ${res.status}`);
    mutationMs.push(performance.now() - sentAt);
    await Promise.race([finished, timeout]);
    round = null;
    missed += judgeRound(r, pause ? 'removed' : 'added', latencies);
    roundDone = null;
    await new Promise((resolve) => setTimeout(resolve, gapMs));
  }
  const cpu = process.cpuUsage(cpu0);
  send({ type: 'measured', latencies, missed, mutationMs, cpuUsec: cpu.user + cpu.system });
}

process.on('message', (command: Command) => {
  const work =
    command.type === 'open'
      ? open(command.count)
      : command.type === 'rounds'
        ? rounds(command.rounds, command.gapMs)
        : (async () => {
            for (const s of subscribers) s.dispose();
            process.exit(0);
          })();
  work.catch((error: unknown) => {
    send({ type: 'error', message: error instanceof Error ? error.message : String(error) });
  });
});
