/** `Query.viewer`: the caller, as the schema shows it (`src/schema/viewer.ts`). */
import type { Context, Role } from '../context.js';

/**
 * `Query.viewer`: who the caller is, so a client can hide what its role may not do, and the
 * name the steering history records for it (DESIGN.md §4.6; its role when the context has none).
 */
export const viewer = (ctx: Context): { role: Role; actor: string } => ({
  role: ctx.role,
  actor: ctx.actor ?? ctx.role,
});
