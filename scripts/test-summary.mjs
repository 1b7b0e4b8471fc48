// After `npm test`: one plain closing line, `tests: N passed, N failed, N skipped`, from
// vitest's JSON report, so CI logs say how many tests ran whatever reporter is read.
import { readFileSync } from 'node:fs';

const report = JSON.parse(readFileSync(new URL('../test-results/vitest.json', import.meta.url)));
const skipped = report.numPendingTests + report.numTodoTests;
process.stdout.write(
  `tests: ${report.numPassedTests} passed, ${report.numFailedTests} failed, ${skipped} skipped\n`,
);
if (report.numTotalTests === 0) process.exit(1);
