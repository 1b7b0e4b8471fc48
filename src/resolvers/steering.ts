/**
 * What every steering resolver hands the engine besides its arguments (DESIGN.md §4.6): the
 * caller's actor, so the history says who asked. Call it in every resolver of a steering
 * mutation: `ctx.engine.queue(a.queue).setLimit(a.group, a.limit, steering(ctx))`.
 */
import type { Context } from '../context.js';
import type { SteeringOptions } from '../lanes/index.js';

/**
 * The {@link SteeringOptions} of a GraphQL call: `{ actor }` — the token's name, else its role
 * (`admin` with auth off) — or `{}` when the context carries no actor (the queue handle's own
 * `actor` is recorded then). Never throws.
 */
export function steering(ctx: Pick<Context, 'actor'>): SteeringOptions {
  return ctx.actor === undefined ? {} : { actor: ctx.actor };
}
