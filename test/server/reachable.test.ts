/**
 * Small server things, through the real server: `/health` answers a small JSON body
 * (not an empty one), and a server bound to a wildcard address (`HOST=0.0.0.0`) advertises a
 * URL a client can use — loopback, plus the machine's names — never `http://0.0.0.0:…`.
 */
import os from 'node:os';
import { describe, expect, it } from 'vitest';
import { advertise } from '../../src/server/advertise.js';
import { useTestRedis } from '../support/redis.js';
import { startTestServer } from '../support/server.js';

const redis = useTestRedis();

describe('/health', () => {
  it('answers 200 with {"status":"ok"} as JSON, for GET and (without a body) HEAD', async () => {
    const server = await startTestServer(redis.url);
    try {
      const response = await fetch(`${server.server.url}/health`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      expect(await response.json()).toEqual({ status: 'ok' });
      const head = await fetch(`${server.server.url}/health?probe=1`, { method: 'HEAD' });
      expect(head.status).toBe(200);
      expect(await head.text()).toBe('');
    } finally {
      await server.stop();
    }
  });
});

describe('the advertised URL', () => {
  it('is loopback, with the machine named besides, for a server bound to 0.0.0.0', async () => {
    const server = await startTestServer(redis.url, {
      HOST: '0.0.0.0',
      AUTH_TOKENS: `admin:${'t'.repeat(24)}`,
    });
    try {
      const url = new URL(server.server.url);
      expect(url.hostname).toBe('127.0.0.1');
      expect((await fetch(`${server.server.url}/health`)).status).toBe(200);
      const { elsewhere } = advertise('0.0.0.0', Number(url.port));
      expect(elsewhere).toContain(`http://${os.hostname()}:${url.port}`);
      for (const other of elsewhere) expect(other).not.toMatch(/0\.0\.0\.0|127\.0\.0\.1/);
    } finally {
      await server.stop();
    }
  });

  it('is the bound address itself when that is a specific one', () => {
    expect(advertise('127.0.0.1', 4000)).toEqual({ url: 'http://127.0.0.1:4000', elsewhere: [] });
    expect(advertise('::1', 4000)).toEqual({ url: 'http://[::1]:4000', elsewhere: [] });
    expect(advertise('::', 4000).url).toBe('http://[::1]:4000');
  });
});
