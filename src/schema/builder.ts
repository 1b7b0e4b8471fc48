/**
 * The Pothos builder and nothing else: the Context, the scalars and the auth scopes in its
 * generic. Type files add to it; `index.ts` turns it into the schema.
 */
import SchemaBuilder from '@pothos/core';
import ScopeAuthPlugin from '@pothos/plugin-scope-auth';
import { GraphQLError } from 'graphql';
import { type Context, roleRank as RANK } from '../context.js';

export const builder = new SchemaBuilder<{
  Context: Context;
  Scalars: {
    JSON: { Input: unknown; Output: unknown };
    DateTime: { Input: Date; Output: Date };
    SafeInt: { Input: number; Output: number };
  };
  AuthScopes: { read: boolean; worker: boolean; admin: boolean };
  DefaultFieldNullability: false;
}>({
  plugins: [ScopeAuthPlugin],
  defaultFieldNullability: false,
  scopeAuth: {
    // Checked when a subscription starts, not on each event, and again for every operation
    // on a socket (the context is built per operation), so a role is never cached.
    authorizeOnSubscribe: true,
    authScopes: (ctx) => ({
      read: RANK[ctx.role] >= RANK.read,
      worker: RANK[ctx.role] >= RANK.worker,
      admin: RANK[ctx.role] >= RANK.admin,
    }),
    unauthorizedError: () =>
      new GraphQLError('this operation needs a role your token does not have', {
        extensions: { code: 'FORBIDDEN' },
      }),
  },
});
