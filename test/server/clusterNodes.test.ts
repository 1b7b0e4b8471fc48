/**
 * `REDIS_CLUSTER_NODES` (DESIGN.md §6): validated where configuration is read, each mistake named
 * by its entry with passwords masked, exclusive with `REDIS_URL`; at start, seeds that are not a
 * cluster's nodes are refused in the one-line `NAME=value: cause` form (here against one Redis:
 * the cluster cases are test/cluster/server.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { isCluster } from '../../src/lanes/internal.js';
import { buildServer } from '../../src/server/app.js';
import { ConfigError, loadConfig } from '../../src/server/config.js';
import { createLogger } from '../../src/server/logger.js';
import { StartupError } from '../../src/server/startupError.js';
import { useTestRedis } from '../support/redis.js';

const redis = useTestRedis();

/** The ConfigError message `env` gives, or null when it loads. */
function configError(env: Record<string, string>): string | null {
  try {
    loadConfig(env);
    return null;
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
}

describe('REDIS_CLUSTER_NODES', () => {
  it('takes host:port and redis:// entries, as written', () => {
    const config = loadConfig({
      REDIS_CLUSTER_NODES: ' 10.0.0.5:7000,rediss://:secret@cache:7001 ,[::1]:7002',
    });
    expect(config.redisClusterNodes).toEqual([
      '10.0.0.5:7000',
      'rediss://:secret@cache:7001',
      '[::1]:7002',
    ]);
    expect(config.redisUrl).toBeUndefined();
  });

  it('names each bad entry, masks passwords, and refuses REDIS_URL beside it', () => {
    expect(configError({ REDIS_CLUSTER_NODES: 'a:1,b' })).toBe(
      'REDIS_CLUSTER_NODES=a:1,b: entry 2 is not host:port (e.g. 10.0.0.5:7000) or a redis:// URL of one node',
    );
    expect(configError({ REDIS_CLUSTER_NODES: 'redis://:hunter2@a:1,,c:99999' })).toBe(
      'REDIS_CLUSTER_NODES=redis://:****@a:1,,c:99999: entry 2 is empty (a stray comma?); entry 3 is not host:port (e.g. 10.0.0.5:7000) or a redis:// URL of one node',
    );
    // A URL entry is checked as REDIS_URL is: its own problem named, not the generic one.
    expect(
      configError({ REDIS_CLUSTER_NODES: 'redis://h:7000?keyPrefix=x,rediss://:pw@h:70000' }),
    ).toBe(
      'REDIS_CLUSTER_NODES=redis://h:7000?keyPrefix=x,rediss://:****@h:70000: entry 1: ?keyPrefix= sets the ioredis option keyPrefix="x", which ioredis does not apply to the lane and job keys Ringmaster\'s scripts build, so jobs would be stranded; remove it from REDIS_CLUSTER_NODES and set KEY_PREFIX instead (KEY_PREFIX=x puts every key under x:); entry 2: the port 70000 is out of range: a port is 1 to 65535',
    );
    expect(configError({ REDIS_URL: 'redis://a:1', REDIS_CLUSTER_NODES: 'b:2' })).toMatch(
      /^REDIS_CLUSTER_NODES=b:2: is set with REDIS_URL: set one/,
    );
  });

  it('a seed that is one Redis, not a cluster node, stops the start with one line', async () => {
    const config = loadConfig({
      PORT: '0',
      LOG_LEVEL: 'silent',
      REDIS_CLUSTER_NODES: redis.url.replace('redis://', ''),
    });
    const error = await buildServer(config, createLogger('silent')).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(StartupError);
    expect((error as Error).message).toBe(
      `REDIS_CLUSTER_NODES=${redis.url.replace('redis://', '')}: ${redis.url.replace('redis://', '')} is not a Redis Cluster node (cluster_enabled:0): REDIS_CLUSTER_NODES names the nodes of a cluster; for one Redis set REDIS_URL instead`,
    );
  });

  it('REDIS_URL at one Redis stays one Redis (no cluster)', async () => {
    const config = loadConfig({ PORT: '0', LOG_LEVEL: 'silent', REDIS_URL: redis.url });
    const server = await buildServer(config, createLogger('silent'));
    try {
      expect(isCluster(server.engine.redis)).toBe(false);
    } finally {
      await server.stop();
    }
  });
});
