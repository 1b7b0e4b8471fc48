/** `PageInfo`, the Relay page state every connection of the schema shares (DESIGN.md §4.2). */
import { builder } from './builder.js';

export const PageInfoRef = builder
  .objectRef<{ hasNextPage: boolean; endCursor: string | null }>('PageInfo')
  .implement({
    fields: (t) => ({
      hasNextPage: t.exposeBoolean('hasNextPage'),
      endCursor: t.exposeString('endCursor', { nullable: true }),
    }),
  });
