import { fanout } from './fanout.js';
import { startBenchRedis } from './redis.js';
const redis = await startBenchRedis();
try {
  const r = await fanout(redis, { counts: [1_000, 5_000], rounds: 30, gapMs: 100 });
  for (const row of r.rows) console.log(`RESULT ${process.env.BENCH_SERVER_ROOT} n=${row.subscribers} p50=${row.p50Ms.toFixed(1)} p99=${row.p99Ms.toFixed(1)} cpu=${row.serverCpuMsPerChange.toFixed(1)} subcpu=${row.subscriberCpuMsPerChange.toFixed(1)}`);
} finally { await redis.stop?.(); process.exit(0); }
