/**
 * `npm run codegen`: print the Pothos schema to a sorted `schema.graphql`, then generate typed
 * documents (client preset) for the operations in `test/operations/` into `test/gql/`.
 * `npm run codegen -- --check` writes nothing and fails when either is out of date (CI).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { CodegenConfig } from '@graphql-codegen/cli';
import { generate } from '@graphql-codegen/cli';
import { printSchema } from 'graphql';
import { schema } from './src/schema/index.js';

const check = process.argv.includes('--check');
const SCHEMA_FILE = 'schema.graphql';

const config: CodegenConfig = {
  schema: SCHEMA_FILE,
  documents: ['test/operations/*.graphql'],
  generates: {
    'test/gql/': {
      preset: 'client',
      config: { useTypeImports: true, enumsAsTypes: true },
      presetConfig: { fragmentMasking: false },
    },
  },
  silent: true,
  emitLegacyCommonJSImports: false,
};

const read = (file: string): string | null => {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return null;
  }
};

const printed = `${printSchema(schema)}\n`;
const stale: string[] = [];
if (read(SCHEMA_FILE) !== printed) {
  if (check) stale.push(SCHEMA_FILE);
  else writeFileSync(SCHEMA_FILE, printed);
}

const outputs = await generate({ ...config, schema: printed }, false);
for (const { filename, content } of outputs) {
  if (read(filename) === content) continue;
  if (check) {
    stale.push(filename);
  } else {
    mkdirSync(dirname(filename), { recursive: true });
    writeFileSync(filename, content);
  }
}

if (stale.length > 0) {
  process.stderr.write(`out of date (run npm run codegen): ${stale.join(', ')}\n`);
  process.exit(1);
}
process.stdout.write(check ? 'codegen: up to date\n' : 'codegen: written\n');
