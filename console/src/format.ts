/** Number and time formatting, and the colours of group states. */
import type { GroupRowFragment, GroupState } from './gql/graphql';

const integer = new Intl.NumberFormat('en-US');
const compact = new Intl.NumberFormat('en-US', { notation: 'compact', maximumFractionDigits: 1 });
const rate = new Intl.NumberFormat('en-US', { maximumFractionDigits: 1 });

/** 12,345 */
export const n = (value: number): string => integer.format(value);
/** 12.3K (exact below 10,000) */
export const short = (value: number): string =>
  value < 10_000 ? integer.format(value) : compact.format(value);
/** 3.5 */
export const perSecond = (value: number): string => rate.format(value);

/** 14:03:07 */
export const clock = (ms: number): string =>
  new Date(ms).toLocaleTimeString('en-GB', { hour12: false });

/**
 * What the console calls a group's standing: the API's state, with SATURATED split into
 * "parked" (limit 0, or below the work in flight) and "at limit".
 */
export type Standing = 'ready' | 'limit' | 'parked' | 'paused' | 'idle';

export function standing(g: Pick<GroupRowFragment, 'state' | 'limit' | 'active'>): Standing {
  const byState: Record<GroupState, Standing> = {
    READY: 'ready',
    SATURATED: 'limit',
    PAUSED: 'paused',
    IDLE: 'idle',
  };
  if (g.state === 'SATURATED' && g.limit !== null && (g.limit === 0 || g.active > g.limit)) {
    return 'parked';
  }
  return byState[g.state];
}

export const STANDING_LABEL: Record<Standing, string> = {
  ready: 'ready',
  limit: 'at limit',
  parked: 'parked',
  paused: 'paused',
  idle: 'idle',
};
