/**
 * The schema (DESIGN.md §4). Importing it starts nothing, so `codegen.ts` can print it and
 * tests can build it without a server.
 */
import { lexicographicSortSchema } from 'graphql';
import { builder } from './builder.js';
import './scalars.js';
import './group.js';
import './job.js';
import './queue.js';
import './ring.js';
import './audit.js';
import './layout.js';
import './viewer.js';
import './snapshot.js';
import './jobs.js';
import './actions.js';
import './rateLimit.js';
import './overrides.js';
import './weights.js';
import './history.js';
import './queueCap.js';
import './schedules.js';
import './workers.js';
import './maxPending.js';
import './throughput.js';
import './topGroups.js';

builder.mutationType({});

/** The executable schema, types sorted by name. */
export const schema = lexicographicSortSchema(builder.toSchema());
