/**
 * `Query.viewer`: the caller's role, open to every client, so a client (the console) can hide
 * actions it may not take.
 */
import * as resolve from '../resolvers/viewer.js';
import { builder } from './builder.js';

const RoleRef = builder.enumType('Role', {
  description: 'read: queries and subscriptions; worker: read + job calls; admin: everything.',
  values: ['READ', 'WORKER', 'ADMIN'] as const,
});

const ViewerRef = builder
  .objectRef<{ role: 'read' | 'worker' | 'admin'; actor: string }>('Viewer')
  .implement({
    description: 'The caller.',
    fields: (t) => ({
      role: t.field({
        type: RoleRef,
        description: 'ADMIN when AUTH_TOKENS is unset.',
        resolve: (v) => v.role.toUpperCase() as 'READ' | 'WORKER' | 'ADMIN',
      }),
      actor: t.exposeString('actor', {
        description:
          'Who the steering history records the caller as: its token’s name (AUTH_TOKENS `name=role:token`), else its role; `admin` when AUTH_TOKENS is unset.',
      }),
    }),
  });

builder.queryField('viewer', (t) =>
  t.field({
    type: ViewerRef,
    authScopes: { read: true },
    description: 'The caller: its role, so a client can hide what it may not do.',
    resolve: (_root, _args, ctx) => resolve.viewer(ctx),
  }),
);
