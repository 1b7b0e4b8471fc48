/** `Query.viewer`: the caller, as the schema shows it (`src/schema/viewer.ts`). */
import type { Context, Role } from '../context.js';

/** `Query.viewer`: who the caller is, so a client can hide what its role may not do. */
export const viewer = (ctx: Context): { role: Role } => ({ role: ctx.role });
