/**
 * Telling a no-op from a change (docs/cli.md): a steering mutation answers the group after,
 * which looks the same whether the call changed it or it already was so — and such a call
 * changes nothing in Redis and records no history (DESIGN.md §4.6). So a plain call reads the
 * group first and, when the value asked for is already there (and no timed revert of its kind
 * is pending, which a plain call would drop), words its report "already … (unchanged)".
 */
import { request } from '../client.js';
import type { CliContext } from '../context.js';
import { CliError, ExitCode } from '../errors.js';
import { CliGroupDocument, type CliGroupFragment } from '../gql/graphql.js';

/**
 * The group just before a plain change, or null when it is not worth reading or could not be
 * read: with `--json` (whose output is the mutation's data alone; the client still checks that
 * --url answers HTTP before the change), and on a failure of the read that came as an answer
 * (a GraphQL error, a 401): the change is sent anyway and reports its own failure. A read that
 * got no answer — nothing listening, no answer within --timeout, not a Ringmaster server (exit
 * 4 or 1) — ends the command there: the change is never sent where nothing answered. Read and
 * change are two calls: another caller may act between them, so "already" is what this read
 * saw.
 */
export async function groupBefore(
  context: CliContext,
  queue: string,
  group: string,
): Promise<CliGroupFragment | null> {
  if (context.json) return null;
  try {
    return (await request(context.connection, CliGroupDocument, { queue, id: group })).queue.group;
  } catch (error) {
    if (noAnswer(error)) throw error;
    return null;
  }
}

/** Whether a failed read got no answer from the API at all (exit 4, or 1 for --url not the API). */
const noAnswer = (error: unknown): boolean =>
  error instanceof CliError &&
  (error.exitCode === ExitCode.UNREACHABLE || error.exitCode === ExitCode.USAGE);

/** What each plain call asks for, as a test of the group before it: true when it is so already. */
export const already = {
  limit: (g: CliGroupFragment, limit: number) => g.limit === limit && !g.limitOverride,
  unlimit: (g: CliGroupFragment) => (g.limit ?? null) === null && !g.limitOverride,
  pause: (g: CliGroupFragment) => g.paused && !g.pauseOverride,
  resume: (g: CliGroupFragment) => !g.paused && !g.pauseOverride,
  weight: (g: CliGroupFragment, weight: number) => g.weight === weight,
  rate: (g: CliGroupFragment, max: number, windowMs: number, burst: number) =>
    g.rateLimit?.max === max && g.rateLimit.windowMs === windowMs && g.rateLimit.burst === burst,
  unrate: (g: CliGroupFragment) => !g.rateLimit,
} as const;
