/**
 * The API contract suite, run once against a cluster-backed server: the same test files as on one
 * Redis — every query and mutation over HTTP checked against the stored state
 * (test/api/http.test.ts), auth on every transport (test/api/auth.test.ts) and subscriptions
 * (test/api/subscriptions.test.ts) — imported here, not copied, with `REDIS_URL` naming one node
 * of a test cluster. The test Redis support's external mode recognises the cluster (its clients
 * are ioredis `Cluster`s, its checks cover every master) and each suite's server detects it from
 * that one node, as a user's would.
 *
 * The cluster is started while this file is collected (top-level await), not in a hook: the
 * suites read `REDIS_URL` as they are imported (`usingExternalRedis()` decides what they skip).
 */
import { afterAll, describe } from 'vitest';
import { startTestCluster } from '../support/cluster.js';

const cluster = await startTestCluster();
process.env.REDIS_URL = cluster.url;
afterAll(async () => {
  await cluster.stop();
});

// Each in a suite of its own, so each file's top-level hooks stay with its own tests (the
// subscriptions suite's start a server per test).
describe('queries and mutations (api.http)', async () => {
  await import('../api/http.test.js');
});
describe('auth (api.auth)', async () => {
  await import('../api/auth.test.js');
});
describe('subscriptions (api.subscriptions)', async () => {
  await import('../api/subscriptions.test.js');
});
