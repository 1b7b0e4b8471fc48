/**
 * The package's API (DESIGN.md §4.1, "The package"): `src/lanes/index.ts`, built to
 * dist/lanes/index.js, exports exactly these names, so a new one is added here on purpose and
 * an internal one (a key helper, a decoder, a connection opener) never leaks into it. The
 * package.json `exports` map makes it the only entry a user can import.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import * as api from '../../src/lanes/index.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The values: classes, errors, bounds and defaults. */
const VALUES = [
  'Defaults',
  'ErrorCode',
  'EvictionPolicyError',
  'Limits',
  'Queue',
  'Reaper',
  'Ringmaster',
  'RingmasterError',
  'Worker',
  'clusterOptions',
];

/** The types: what a caller passes (options, the connection) and the records it gets back. */
const TYPES = [
  'ActiveJob',
  'BackoffPolicyInput',
  'ClaimOptions',
  'CompleteOptions',
  'Completion',
  'DebounceInput',
  'EnqueueOptions',
  'GroupInfo',
  'GroupState',
  'HistoryEntry',
  'Job',
  'JobError',
  'JobPage',
  'JobProgress',
  'JobState',
  'LayoutUpgrade',
  'LayoutUpgradeOptions',
  'Processor',
  'QueueCap',
  'QueueCounts',
  'QueueOptions',
  'QueueState',
  'QueueStats',
  'ReaperOptions',
  'RedisClient',
  'RedisConnection',
  'RetryOptions',
  'RingmasterOptions',
  'RotaEntry',
  'Schedule',
  'ScheduleInput',
  'SchedulePage',
  'SchedulesOptions',
  'StateLoss',
  'StateSeen',
  'SteeringOptions',
  'WorkerCloseOptions',
  'WorkerHeartbeat',
  'WorkerInfo',
  'WorkerOptions',
];

/** Every name the entry exports, types included, as the TypeScript checker sees them. */
function exportedNames(file: string): string[] {
  const program = ts.createProgram([file], {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    noEmit: true,
    skipLibCheck: true,
    noLib: true,
    types: [],
  });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(file);
  const module = source && checker.getSymbolAtLocation(source);
  if (!module) throw new Error(`${file}: no module symbol`);
  return checker.getExportsOfModule(module).map((symbol) => symbol.name);
}

const sorted = (names: readonly string[]) => [...names].sort();

describe('the package API', () => {
  it('exports these values at run time, and nothing else', () => {
    expect(sorted(Object.keys(api))).toEqual(sorted(VALUES));
  });

  it('exports these names, types included, and nothing else', () => {
    const names = exportedNames(`${ROOT}src/lanes/index.ts`);
    expect(sorted(names)).toEqual(sorted([...VALUES, ...TYPES]));
  });

  it('package.json makes the built entry the only one (exports), as main and types say', () => {
    const pkg = JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8'));
    expect(pkg.exports).toEqual({
      '.': { types: './dist/lanes/index.d.ts', import: './dist/lanes/index.js' },
      './package.json': './package.json',
    });
    expect(pkg.main).toBe('dist/lanes/index.js');
    expect(pkg.types).toBe('dist/lanes/index.d.ts');
  });
});
