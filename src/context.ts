/** What every resolver receives (built per operation by the server, DESIGN.md §6 Auth). */
import type { Ringmaster } from './lanes/index.js';
import type { LiveFeed } from './pubsub/index.js';

/** DESIGN.md §6 roles: `read` ⊂ `worker` ⊂ `admin`. */
export type Role = 'read' | 'worker' | 'admin';

/** Each role's rank: a role may do what every role of a lower or equal rank may. */
export const roleRank: Readonly<Record<Role, number>> = { read: 1, worker: 2, admin: 3 };

export interface Context {
  readonly engine: Ringmaster;
  readonly feed: LiveFeed;
  /** The caller's role; `admin` when auth is off (AUTH_TOKENS unset, loopback only). */
  readonly role: Role;
  /**
   * Who the caller is, recorded in the steering history (DESIGN.md §4.6): the token's name
   * (`name=role:token` in AUTH_TOKENS), else its role; `admin` when auth is off. Absent in
   * contexts built without one (the engine's own `actor` is recorded then).
   */
  readonly actor?: string;
}
