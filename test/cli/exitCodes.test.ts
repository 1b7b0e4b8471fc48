/**
 * The CLI's exit codes, one per failure kind (docs/cli.md, `ringmaster --help`), each with
 * one line on stderr: 1 usage, 2 refused input, 3 auth, 4 nothing listening, 5 server error,
 * 6 a change sent but unanswered.
 */
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import {
  type AddressInfo,
  createServer as createNetServer,
  type Server as NetServer,
  type Socket,
} from 'node:net';
import getPort from 'get-port';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uniqueQueueName } from '../support/lanes.js';
import { READY, useTestServer } from '../support/server.js';
import { type CliResult, runCli } from './support.js';

const ADMIN = 'admin-token-0123456789';
const READ = 'read-token-0123456789ab';

const api = useTestServer({
  REAP_INTERVAL_MS: '86400000',
  AUTH_TOKENS: `admin:${ADMIN},read:${READ}`,
});

/** `ringmaster <args>` against the auth-on server with `token` (none when null). */
function cli(args: string[], token: string | null = ADMIN): Promise<CliResult> {
  return runCli(args, {
    RINGMASTER_URL: api.endpoint,
    ...(token === null ? {} : { RINGMASTER_TOKEN: token }),
  });
}

/** Exit `code`, nothing on stdout and one line on stderr matching `message`. */
function expectFailure(result: CliResult, code: number, message: RegExp): void {
  expect(result.code, result.stderr).toBe(code);
  expect(result.stdout).toBe('');
  expect(result.stderr).toMatch(/^ringmaster: [^\n]+\n$/);
  expect(result.stderr).toMatch(message);
}

describe('exit codes', () => {
  it('0: --help lists the commands and the exit codes', async () => {
    const result = await runCli(['--help']);
    expect(result.code).toBe(0);
    for (const command of ['status', 'groups', 'group', 'limit', 'unlimit', 'pause', 'resume']) {
      expect(result.stdout).toMatch(new RegExp(`^  ${command}\\b`, 'm'));
    }
    expect(result.stdout).toMatch(/^ {2}4 {2}unreachable/m);
    expect(result.stdout).toMatch(/^ {2}6 {2}unconfirmed: .*may\s+have been applied/m);
    expect(result.stdout).toContain('RINGMASTER_URL');
  });

  it('0: --version prints the package version', async () => {
    const { version } = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };
    const result = await runCli(['--version']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe(`${version}\n`);
  });

  it('1: bad arguments — an unknown option or command, a value that does not parse, no queue', async () => {
    const q = uniqueQueueName('cli-usage');
    expectFailure(await cli(['groups', '-q', q, '--bogus']), 1, /unknown option '--bogus'/);
    expectFailure(await cli(['gruops']), 1, /unknown command 'gruops'.*groups/);
    expectFailure(
      await cli(['limit', 'g', 'many', '-q', q]),
      1,
      /change limit: must be a whole number 0\.\.1,000,000, not "many"/,
    );
    expectFailure(
      await cli(['limit', 'g', '-1', '-q', q]),
      1,
      /change limit: must be a whole number 0\.\.1,000,000, not "-1"/,
    );
    expectFailure(await cli(['limit', 'g', '-q', q]), 1, /missing required argument 'limit'/);
    expectFailure(await cli(['pause', 'g', '-q', q, '--for', 'soon']), 1, /duration such as/);
    // A number without a unit would be ms: refused, naming the option and units to use.
    const unitless =
      /option '--for <duration>' .*needs a unit, such as 10m, 30s or 500ms, not "10"/;
    expectFailure(await cli(['pause', 'g', '-q', q, '--for', '10']), 1, unitless);
    expectFailure(await cli(['limit', 'g', '2', '-q', q, '--for', '10']), 1, unitless);
    expectFailure(await cli(['pause', 'g', '-q', q, '--for', '1h 30']), 1, /needs a unit/);
    expectFailure(
      await cli(['top', '-q', q, '--interval', '1']),
      1,
      /'--interval <duration>' .*needs a unit/,
    );
    // top --interval: at least 100ms.
    expectFailure(
      await cli(['top', '-q', q, '--interval', '50ms']),
      1,
      /'--interval <duration>' .*change --interval: must be 100ms\.\.1h, not "50ms"/,
    );
    // Past 2^31-1 ms setInterval would fire every millisecond: at most an hour.
    expectFailure(
      await cli(['top', '-q', q, '--interval', '30d']),
      1,
      /change --interval: must be 100ms\.\.1h, not "30d"/,
    );
    expectFailure(
      await cli(['groups', '-q', q, '--state', 'sleeping']),
      1,
      /as tables show it \(ready, re-joining, at limit, .*\) or as the API names it \(READY, SATURATED, .*\), not "sleeping"/,
    );
    expectFailure(
      await cli(['groups', '-q', q, '--first', '0']),
      1,
      /change --first: must be a whole number 1\.\.500, not "0"/,
    );
    expectFailure(await cli(['groups']), 1, /pass --queue <name> or set RINGMASTER_QUEUE/);
    expectFailure(
      await cli(['retry-dead', '-q', q]),
      1,
      /exactly one of --group <group> and --all/,
    );
    expectFailure(await cli(['status', '--url', 'ftp://x']), 1, /http:\/\/ or https:\/\//);
  });

  it('1: a number outside the server’s range, named with its true range; nothing sent', async () => {
    const q = uniqueQueueName('cli-range');
    // The server's bounds (DESIGN.md §5), past 2^31-1 too (no graphql-js "Int cannot represent").
    for (const [args, message] of [
      [
        ['limit', 'g', '1000001'],
        /argument 'limit'\. change limit: must be a whole number 0\.\.1,000,000/,
      ],
      [['limit', 'g', '4294967296'], /change limit: must be a whole number 0\.\.1,000,000/],
      [['weight', 'g', '0'], /change weight: must be a whole number 1\.\.1,000, not "0"/],
      [['weight', 'g', '1001'], /change weight: must be a whole number 1\.\.1,000, not "1001"/],
      [['weight', 'g', '2147483648'], /change weight: must be a whole number 1\.\.1,000/],
      [['rate', 'g', '0', '--per', '1s'], /change max: must be a whole number 1\.\.1,000,000/],
      [['rate', 'g', '9007199254740993', '--per', '1s'], /change max: .*1\.\.1,000,000/],
      [['rate', 'g', '5', '--per', '31d'], /change --per: must be 1ms\.\.30d, not "31d"/],
      [['limit', 'g', '1', '--for', '30d1ms'], /change --for: must be 1ms\.\.30d/],
      [['pause', 'g', '--for', '31d'], /change --for: must be 1ms\.\.30d, not "31d"/],
      [['dead', '--first', '501'], /change --first: must be a whole number 1\.\.500/],
      [['history', '--first', '501'], /change --first: must be a whole number 1\.\.500/],
    ] as const) {
      const result = await cli([...args, '-q', q]);
      expectFailure(result, 1, message);
      expect(result.stderr).not.toMatch(/Int cannot represent|BAD_USER_INPUT/);
    }
    expect(await api.server.engine.queue(q).known()).toBe(false);
  });

  it("1: commander's own refusals say what to change: the help to run, `--` for a dash-led id", async () => {
    const q = uniqueQueueName('cli-hints');
    for (const [args, message] of [
      [['bogus'], /^ringmaster: unknown command 'bogus'; run `ringmaster --help` for its usage\n$/],
      [
        ['gruops'],
        /^ringmaster: unknown command 'gruops' \(Did you mean groups\?\); run `ringmaster --help` for its usage\n$/,
      ],
      [
        ['cancel', 'g', '-q', q],
        /^ringmaster: missing required argument 'kind'; run `ringmaster cancel --help` for its usage\n$/,
      ],
      [
        ['limit', '-g', '3', '-q', q],
        /^ringmaster: unknown option '-g'; if -g is an id or a number, put ids that start with '-' after `--`, options first \(ringmaster limit -q <queue> -- -g …\); else run `ringmaster limit --help` for its usage\n$/,
      ],
      [
        ['groups', '-q', q, '--bogus'],
        /^ringmaster: unknown option '--bogus'; run `ringmaster groups --help` for its usage\n$/,
      ],
      [
        ['limit', 'g', '3', '4', '-q', q],
        /^ringmaster: too many arguments for 'limit'\. Expected 2 arguments but got 3; run `ringmaster limit --help` for its usage\n$/,
      ],
      [['groups', '-q'], /argument missing; run `ringmaster --help` for its usage\n$/],
    ] as const) {
      expectFailure(await cli([...args]), 1, message);
    }
    // What the hint says works: the dash-led id after `--`, the options first.
    const dashed = await cli(['limit', '-q', q, '--', '-g', '3']);
    expect(dashed.code, dashed.stderr).toBe(0);
    expect((await api.server.engine.queue(q).group('-g')).limit).toBe(3);
  });

  it('0: `--for` help says what reverts, and when nothing does (a plain call, DESIGN.md §4.8)', async () => {
    const help = async (command: string) =>
      (await runCli([command, '--help'])).stdout.replace(/\s+/g, ' ');
    expect(await help('pause')).toContain(
      '--for <duration> pause for this long, then resume — if the group was running before (before the first pending timed pause or resume); a group that was paused stays paused: nothing reverts, it is a plain pause (',
    );
    expect(await help('resume')).toContain(
      '--for <duration> resume for this long, then pause again — if the group was paused before (before the first pending timed pause or resume); a group that was running stays running: nothing reverts, it is a plain resume (',
    );
    expect(await help('limit')).toContain(
      '--for <duration> set the limit for this long, then go back to the limit from before (from before the first pending timed limit); when that is this limit, nothing reverts: it is a plain limit (',
    );
    expect(await help('pause')).not.toContain('on its own');
  });

  it('1: a number with a space around it, or anything but decimal digits; nothing sent', async () => {
    const q = uniqueQueueName('cli-digits');
    const digits = /in plain decimal digits \(no space, sign, point, exponent or 0x\)/;
    for (const [args, message] of [
      // Positional numbers.
      [['limit', 'g', ' 3 '], /change limit: must be a whole number 0\.\.1,000,000, not " 3 "/],
      [['limit', 'g', '3 '], digits],
      [['limit', 'g', '\t3'], digits],
      [['limit', 'g', '+3'], digits],
      [['limit', 'g', '3.0'], digits],
      [['limit', 'g', '1e3'], digits],
      [['limit', 'g', '0x10'], digits],
      [['weight', 'g', ' 2'], /change weight: .*not " 2": in plain decimal digits/],
      [['rate', 'g', '5 ', '--per', '1s'], /change max: .*not "5 ": in plain decimal digits/],
      // Option numbers.
      [['groups', '--first', ' 5'], /change --first: .*not " 5": in plain decimal digits/],
      [['dead', '--first', '5 '], /change --first: .*not "5 ": in plain decimal digits/],
      [['history', '--first', ' 5'], /change --first: .*not " 5": in plain decimal digits/],
      [['top', '--first', ' 5'], /change --first: .*not " 5": in plain decimal digits/],
      [['groups', '--timeout', ' 100'], /change --timeout: .*not " 100": in plain decimal digits/],
      // Durations: spaces only between their pieces (1h 30m).
      [['pause', 'g', '--for', ' 10m'], /no space around it: write "10m", not " 10m"/],
      [['limit', 'g', '2', '--for', '10m '], /no space around it: write "10m", not "10m "/],
      [['rate', 'g', '5', '--per', ' 1s'], /no space around it: write "1s", not " 1s"/],
      [['top', '--interval', '2s '], /no space around it: write "2s", not "2s "/],
      [['pause', 'g', '--for', '10 m'], /a unit goes right after its number/],
    ] as const) {
      const result = await cli([...args, '-q', q]);
      expectFailure(result, 1, message);
    }
    expect(await api.server.engine.queue(q).known()).toBe(false);
    // Still read: digits alone, and a duration's pieces with a space between.
    expect((await cli(['pause', 'g', '--for', '1h 30m', '-q', q])).code).toBe(0);
    expect((await cli(['limit', 'g', '007', '-q', q, '--timeout', '5000'])).code).toBe(0);
  });

  it('2: input the server refuses (BAD_USER_INPUT), nothing changed', async () => {
    const q = uniqueQueueName('cli-bad');
    const result = await cli(['limit', 'x'.repeat(300), '5', '-q', q]);
    expectFailure(result, 2, /\(change group\) \[BAD_USER_INPUT\]/);
    expect(await api.server.engine.queue(q).known()).toBe(false);
    expectFailure(await cli(['group', 'g', '-q', 'bad name']), 2, /\[BAD_USER_INPUT\]/);
  });

  it('3: no token, an unknown one, or a read token for a steering call', async () => {
    const q = uniqueQueueName('cli-auth');
    const noToken = await cli(['groups', '-q', q], null);
    expectFailure(noToken, 3, /\[UNAUTHENTICATED\]: pass a token .*--token or RINGMASTER_TOKEN/);
    expect(noToken.stderr).not.toMatch(/ : /);
    // Contract change: status shows readiness first (GET /ready needs no token), so its
    // stdout is no longer empty; the auth error still ends it, exit 3.
    for (const token of ['wrong-token-0123456789', null]) {
      const status = await cli(['status'], token);
      expect(status.code, status.stderr).toBe(3);
      expect(status.stdout).toMatch(
        /^http:\S+\/graphql: ready, redis up, feed \w+, eviction noeviction\nqueues: none could be read \(below\)\n$/,
      );
      expect(status.stderr).toMatch(
        /^ringmaster: [^\n]*(UNAUTHENTICATED|HTTP 401)[^\n]*--token or RINGMASTER_TOKEN\n$/,
      );
      const json = await cli(['status', '--json'], token);
      expect(json.code).toBe(3);
      expect(JSON.parse(json.stdout)).toMatchObject({ ready: { ready: true }, queues: null });
    }
    expectFailure(await cli(['pause', 'g', '-q', q], READ), 3, /\[FORBIDDEN\]/);
    expectFailure(await cli(['top', '-q', q], 'wrong-token-0123456789'), 3, /token/);
    // The read token reads.
    expect((await cli(['groups', '-q', q], READ)).code).toBe(0);
  });

  it('4: nothing listening at --url', async () => {
    const port = await getPort();
    const url = `http://127.0.0.1:${port}/graphql`;
    expectFailure(await runCli(['status', '--url', url]), 4, /cannot reach .*ECONNREFUSED/);
    expectFailure(
      await runCli(['groups', '-q', 'q', '--url', url]),
      4,
      /start the server or point --url/,
    );
  });

  it('4: a server that does not answer within --timeout', async () => {
    const silent = createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = silent.address() as AddressInfo;
      const url = `http://127.0.0.1:${port}/graphql`;
      // It accepted the connection: the server is there but slow, so not "start the server".
      const result = await runCli(['groups', '-q', 'q', '--url', url, '--timeout', '200']);
      expectFailure(
        result,
        4,
        /^ringmaster: no answer from http:\S+ in 200 ms: the server or its Redis may be slow; try a larger --timeout\n$/,
      );
      expect(result.stderr).not.toMatch(/start the server/);
      // However short --timeout is, the check that the server listens has its own budget.
      const brief = await runCli(['group', 'a', '-q', 'q', '--url', url, '--timeout', '1']);
      expectFailure(brief, 4, /^ringmaster: no answer from http:\S+ in 1 ms: /);
      const status = await runCli(['status', '--url', url, '--timeout', '1000']);
      expectFailure(status, 4, /no answer from http:\S+\/ready in 1,000 ms: .*slow/);
    } finally {
      silent.closeAllConnections();
      silent.close();
    }
  });

  it('1: a --url where something listens that is not a Ringmaster server; no change is sent', async () => {
    /** What the listeners were sent, to show that no change reached them. */
    const sent: string[] = [];
    const listen = async (onData: (socket: Socket) => void): Promise<NetServer> => {
      const server = createNetServer((socket) =>
        socket.once('data', (chunk: Buffer) => {
          sent.push(chunk.toString());
          onData(socket);
        }),
      );
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      return server;
    };
    const closes = await listen((socket) => socket.destroy());
    const notHttp = await listen((socket) => socket.end("-ERR unknown command 'POST'\r\n"));
    const redisPort = new URL(api.redis.url).port;
    try {
      const at = (server: NetServer | string) =>
        `http://127.0.0.1:${typeof server === 'string' ? server : (server.address() as AddressInfo).port}/`;
      const closed = /closed the connection without an HTTP answer \((UND_ERR_SOCKET|ECONNRESET)\)/;
      for (const [url, said] of [
        [at(closes), closed],
        [at(redisPort), closed],
        [
          at(notHttp),
          /it answered "-ERR unknown command 'POST'", which is not HTTP \(HPE_INVALID_CONSTANT\)/,
        ],
      ] as const) {
        for (const args of [
          ['status'],
          ['groups', '-q', 'q'],
          ['limit', 'g', '3', '-q', 'q'],
          ['limit', 'g', '3', '-q', 'q', '--json'],
          ['pause', 'g', '-q', 'q', '--for', '1m'],
          ['cancel', 'g', 'pause', '-q', 'q'],
          ['retry-dead', '--all', '-q', 'q'],
        ]) {
          const result = await runCli([...args, '--url', url]);
          expectFailure(
            result,
            1,
            new RegExp(
              `^ringmaster: ${url} is not a Ringmaster server: .*; nothing was changed: point --url at the server's /graphql\n$`,
            ),
          );
          expect(result.stderr).toMatch(said);
        }
      }
      expect(sent.length).toBeGreaterThan(0);
      for (const request of sent) expect(request).not.toMatch(/mutation/);
    } finally {
      closes.close();
      notHttp.close();
    }
  });

  describe('4 or 6: a request that gets no answer', () => {
    /** Whether the fake server has read a whole request (so the mutation reached it). */
    let received: string[] = [];
    /** The same, by the request's path (runs at once, each at a path of its own). */
    const byPath = new Map<string, string[]>();
    /** What the fake server does with a request it has read: nothing, or drop the connection. */
    let onRequest: (request: IncomingMessage, response: ServerResponse) => void = () => {};
    let fake: Server;
    beforeAll(async () => {
      fake = createServer((request, response) => {
        let body = '';
        request.on('data', (chunk: Buffer) => {
          body += chunk.toString();
        });
        request.on('end', () => {
          received.push(body);
          const path = request.url ?? '';
          byPath.set(path, [...(byPath.get(path) ?? []), body]);
          onRequest(request, response);
        });
      });
      await new Promise<void>((resolve) => fake.listen(0, '127.0.0.1', resolve));
    });
    afterAll(() => {
      fake.closeAllConnections();
      fake.close();
    });
    const url = (path = '/graphql') =>
      `http://127.0.0.1:${(fake.address() as AddressInfo).port}${path}`;
    /**
     * `ringmaster <args> -q <queue>` at the fake server, giving up after `timeout` ms: 300 by default,
     * more where a read must be answered first (a CLI's first request on this loaded host can
     * take 300 ms).
     */
    const run = (args: string[], timeout = 300, queue = 'q', path?: string) =>
      runCli([...args, '-q', queue, '--url', url(path), '--timeout', String(timeout)]);
    /** As the server answers reads here: in time on a loaded host, yet a short wait for the change. */
    const ANSWERED_READ_TIMEOUT = 1500;
    /** Whether the request the fake server read last is a mutation. */
    const lastIsMutation = () => /^\s*mutation /.test(JSON.parse(received.at(-1) ?? '{}').query);
    /** Answer a read as a server would (the group read before a change: no group; the probe). */
    const answerRead = (response: ServerResponse) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ data: { __typename: 'Query', queue: { group: null } } }));
    };

    it('6: every mutation that timed out after it was sent may have been applied, and says how to check', async () => {
      // The reads before a change are answered (something that speaks HTTP is there); the
      // change is not. The runs go at once, each on a queue and at a path of its own (each
      // waits out its --timeout for the change's answer), with a --timeout for nine CLIs
      // starting together.
      onRequest = (_request, response) => {
        if (!lastIsMutation()) answerRead(response);
      };
      received = [];
      const changes = [
        ['limit', 'a b', '3'],
        ['limit', 'a b', '3', '--for', '10m'],
        ['unlimit', 'a b'],
        ['pause', 'a b'],
        ['resume', 'a b'],
        ['weight', 'a b', '2'],
        ['rate', 'a b', '5', '--per', '1m'],
        ['unrate', 'a b'],
      ];
      const [retry, ...results] = await Promise.all([
        run(['retry-dead', '--group', 'x'], 2 * ANSWERED_READ_TIMEOUT, 'r'),
        ...changes.map((args, i) =>
          run(args, 2 * ANSWERED_READ_TIMEOUT, `q${i}`, `/graphql/run-${i}`),
        ),
      ]);
      for (const [i, result] of results.entries()) {
        expectFailure(
          result,
          6,
          /the change was sent to http:\S+ but no answer came \(timed out\)/,
        );
        expect(result.stderr).toMatch(
          new RegExp(`it may have been applied; check with \`ringmaster group 'a b' -q q${i}\``),
        );
        // A plain call reads the group first (to word a no-op); --for and --json calls have
        // the client check first that --url answers HTTP. Either way the change went last.
        const own = (byPath.get(`/graphql/run-${i}`) ?? []).map((body) => JSON.parse(body));
        expect(own.length, String(changes[i])).toBeGreaterThan(1);
        expect(own.at(-1)?.query).toMatch(/^\s*mutation /);
      }
      expectFailure(retry, 6, /may have been applied; check with `ringmaster dead -q r --group x`/);
      received = [];
      const json = await run(['pause', 'a b', '--json'], ANSWERED_READ_TIMEOUT);
      expectFailure(json, 6, /may have been applied; check with `ringmaster group 'a b' -q q`/);
      expect(received).toHaveLength(2);
      // A query that timed out changed nothing: exit 4, the server named as slow, not absent.
      onRequest = () => {};
      expectFailure(await run(['group', 'a']), 4, /no answer from \S+ in 300 ms: .*--timeout/);
    });

    it('4: a change whose read before it timed out is never sent (it could not be confirmed)', async () => {
      // Contract change: this read going unanswered used to let the change go (then exit 6).
      onRequest = () => {};
      for (const args of [
        ['limit', 'a', '3'],
        ['pause', 'a', '--for', '10m'],
        ['unrate', 'a', '--json'],
        ['cancel', 'a', 'limit'],
        ['retry-dead', '--all'],
      ]) {
        received = [];
        expectFailure(await run(args), 4, /no answer from \S+ in 300 ms: .*--timeout/);
        expect(received).toHaveLength(1);
        expect(received[0]).not.toMatch(/mutation/);
      }
    });

    it('6: retry-dead whose later call went unanswered says what the earlier ones requeued', async () => {
      // The check that --url answers HTTP, then the first call answered, the second not.
      onRequest = (_request, response) => {
        if (!lastIsMutation()) answerRead(response);
        else if (received.length === 2) {
          response.writeHead(200, { 'content-type': 'application/json' });
          response.end(
            JSON.stringify({
              data: { requeueDeadJobs: { count: 1000, remaining: 7, skipped: 0 } },
            }),
          );
        }
      };
      received = [];
      expectFailure(
        await run(['retry-dead', '--all'], ANSWERED_READ_TIMEOUT),
        6,
        /^ringmaster: requeued 1000 dead jobs of q before this: the change was sent .*may have been applied; check with `ringmaster dead -q q`/,
      );
      expect(received).toHaveLength(3);
    });

    it('6: a mutation whose connection dropped after it was sent; 4 for a query', async () => {
      // Dropped after a read was answered: the server is there and may have applied it.
      onRequest = (request, response) => {
        if (lastIsMutation()) request.socket.destroy();
        else answerRead(response);
      };
      expectFailure(
        await run(['pause', 'g'], ANSWERED_READ_TIMEOUT),
        6,
        /no answer came .*may have been applied/,
      );
      // status' GET /ready is answered, its query dropped.
      onRequest = (request, response) => {
        if (request.method === 'GET') answerRead(response);
        else request.socket.destroy();
      };
      const status = await runCli(['status', '--url', url(), '--timeout', '1500']);
      expect(status.code).toBe(4);
      expect(status.stdout).toMatch(/: not ready, .*\nqueues: none could be read \(below\)\n$/);
      expect(status.stderr).toMatch(/^ringmaster: cannot reach [^\n]+\n$/);
    });

    it('4: a mutation whose connection was refused was never sent', async () => {
      const port = await getPort();
      const result = await runCli([
        'pause',
        'g',
        '-q',
        'q',
        '--url',
        `http://127.0.0.1:${port}/graphql`,
      ]);
      expectFailure(result, 4, /cannot reach .*ECONNREFUSED.*start the server/);
    });
  });

  it('5: status with Redis down prints what /ready said, then ends with it', async (context) => {
    if (!api.redis.redis.canControlProcess) context.skip();
    const ready = new URL('/ready', api.endpoint);
    const untilReady = async (want: boolean) => {
      while ((await fetch(ready)).ok !== want) await new Promise((r) => setTimeout(r, 100));
    };
    await api.redis.redis.kill('SIGKILL');
    try {
      await untilReady(false);
      const result = await cli(['status']);
      expect(result.code, result.stderr).toBe(5);
      expect(result.stdout).toMatch(
        /^http:\S+: not ready, redis down, feed \w+, eviction [^\n]+\nqueues: none could be read: [^\n]*\[REDIS_UNAVAILABLE\]\n$/,
      );
      expect(result.stderr).toMatch(
        /^ringmaster: http:\S+\/ready says the server is not ready \(redis down, subscriber \w+, eviction [^)]+\)\n$/,
      );
      const json = await cli(['status', '--json']);
      expect(json.code).toBe(5);
      expect(JSON.parse(json.stdout)).toMatchObject({
        ready: { ready: false, redis: 'down' },
        queues: null,
      });
    } finally {
      await api.redis.redis.restart();
      await untilReady(true);
    }
  });

  it('5: status with Redis frozen (SIGSTOP): /ready says not ready, the queries time out; exit 5, not 4', async (context) => {
    if (!api.redis.redis.canControlProcess) context.skip();
    const ready = new URL('/ready', api.endpoint);
    await api.redis.redis.kill('SIGSTOP');
    try {
      // /ready answers 503 within its 1 s PING bound; the queues query waits on Redis until
      // --timeout runs out.
      const result = await cli(['status', '--timeout', '4000']);
      expect(result.code, result.stderr).toBe(5);
      // The test before restarts Redis without its data, so /ready may now list the queues
      // earlier tests used as stateLost (a true loss); status prints one line for each.
      expect(result.stdout).toMatch(
        /^http:\S+: not ready, redis down, [^\n]+\n(?:state lost: queue [^\n]+\n)*queues: none could be read: no answer from \S+ in 4,000 ms[^\n]*\n$/,
      );
      expect(result.stderr).toMatch(
        /^ringmaster: http:\S+\/ready says the server is not ready \(redis down, [^)]+\)\n$/,
      );
    } finally {
      await api.redis.redis.kill('SIGCONT');
      while (!(await fetch(ready)).ok) await new Promise((r) => setTimeout(r, 100));
    }
  });

  describe('5: server errors', () => {
    let fake: Server;
    let answer: { status: number; body: string };
    /** What /ready answers (503 when not ready, as the server does). */
    let readiness: Record<string, unknown> = READY;
    beforeAll(async () => {
      fake = createServer((request, response) => {
        const ready = request.url === '/ready';
        response.writeHead(ready ? (readiness.ready ? 200 : 503) : answer.status, {
          'content-type': 'application/json',
        });
        response.end(ready ? JSON.stringify(readiness) : answer.body);
      });
      await new Promise<void>((resolve) => fake.listen(0, '127.0.0.1', resolve));
    });
    afterAll(() => {
      fake.closeAllConnections();
      fake.close();
    });
    const url = (path = '/graphql') =>
      `http://127.0.0.1:${(fake.address() as AddressInfo).port}${path}`;

    it('status shows the queues it could read, then exits by the error of the one it could not', async () => {
      const counts = Object.fromEntries(
        [
          'groups',
          'onRing',
          'paused',
          'saturated',
          'pending',
          'delayed',
          'active',
          'dead',
          'completed',
        ].map((key) => [key, 1]),
      );
      answer = {
        status: 200,
        body: JSON.stringify({
          data: { queues: [null, { name: 'up', known: true, state: 'RUNNING', counts }] },
          errors: [
            {
              message: 'Redis is unavailable; retry later.',
              path: ['queues', 0],
              extensions: { code: 'REDIS_UNAVAILABLE', queue: 'down' },
            },
          ],
        }),
      };
      const result = await runCli(['status', '--url', url()]);
      expect(result.code).toBe(5);
      expect(result.stdout).toMatch(/│ \(unreadable\)/);
      expect(result.stdout).toMatch(/│ up\s+│ RUNNING\s+│ 1\s+│/);
      expect(result.stderr).toBe(
        'ringmaster: queue down: Redis is unavailable; retry later. [REDIS_UNAVAILABLE]\n',
      );
      const json = await runCli(['status', '--url', url(), '--json']);
      expect(json.code).toBe(5);
      expect(JSON.parse(json.stdout)).toMatchObject({
        ready: READY,
        queues: [null, { name: 'up' }],
      });
    });

    it('status: the same report when /ready says not ready, then exit 5 naming what it said', async () => {
      readiness = { ...READY, ready: false, eviction: 'allkeys-lru' };
      answer = { status: 200, body: JSON.stringify({ data: { queues: [] } }) };
      try {
        const result = await runCli(['status', '--url', url()]);
        expect(result.code).toBe(5);
        expect(result.stdout).toMatch(
          /: not ready, redis up, feed notifications, eviction allkeys-lru/,
        );
        expect(result.stderr).toMatch(
          /^ringmaster: http:\S+\/ready says the server is not ready \(redis up, subscriber up, eviction allkeys-lru\)\n$/,
        );
        const json = await runCli(['status', '--url', url(), '--json']);
        expect(json.code).toBe(5);
        expect(JSON.parse(json.stdout)).toMatchObject({ ready: { ready: false }, queues: [] });
      } finally {
        readiness = READY;
      }
      answer = { status: 200, body: JSON.stringify({ data: { queues: [] } }) };
      expect((await runCli(['status', '--url', url()])).code).toBe(0);
    });

    it('1: a --url that is no GraphQL endpoint (404, a page of HTML), for queries and changes', async () => {
      const message =
        /^ringmaster: http:\S+ is not a GraphQL endpoint \(HTTP (404|200)\): point --url at the server's \/graphql\n$/;
      answer = { status: 404, body: 'Not Found' };
      expectFailure(await runCli(['groups', '-q', 'q', '--url', url()]), 1, message);
      expectFailure(await runCli(['pause', 'g', '-q', 'q', '--url', url()]), 1, message);
      answer = { status: 200, body: '<!doctype html><title>console</title>' };
      expectFailure(await runCli(['group', 'g', '-q', 'q', '--url', url()]), 1, message);
    });

    it('INTERNAL_SERVER_ERROR, REDIS_UNAVAILABLE, or a 5xx that is not GraphQL', async () => {
      const error = (code: string) =>
        JSON.stringify({
          data: null,
          errors: [{ message: 'Unexpected error.', extensions: { code } }],
        });
      answer = { status: 200, body: error('INTERNAL_SERVER_ERROR') };
      expectFailure(
        await runCli(['groups', '-q', 'q', '--url', url()]),
        5,
        /INTERNAL_SERVER_ERROR/,
      );
      answer = { status: 503, body: error('REDIS_UNAVAILABLE') };
      expectFailure(await runCli(['groups', '-q', 'q', '--url', url()]), 5, /REDIS_UNAVAILABLE/);
      answer = { status: 502, body: '<html>bad gateway</html>' };
      expectFailure(await runCli(['groups', '-q', 'q', '--url', url()]), 5, /HTTP 502/);
    });
  });
});
