/**
 * The order test files start in (vitest's `sequence.sequencer`). vitest's own order runs the
 * slowest files first when it has timed them before (its cache), else the largest files first;
 * a fresh clone, as in CI, has no cache, and a small file that starts a Redis Cluster or a fault
 * scenario can run for minutes: test/cluster/apiContract.test.ts, 1.5 KB, ran 102 s and started
 * last, leaving one of the two workers idle for its whole run (CI, 2026-12-02). So the files that
 * start whole systems — a cluster, a fault scenario, a browser or a clone (`*.e2e.test.ts`) —
 * go first, each group in vitest's order.
 */
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** Files that start whole systems, and so run long whatever their size. */
const HEAVY = /\/test\/(cluster|faults)\/|\.e2e\.test\.ts$/;

export class HeavyFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const heavy = (file: TestSpecification) => HEAVY.test(file.moduleId);
    return [...sorted.filter(heavy), ...sorted.filter((file) => !heavy(file))];
  }
}
