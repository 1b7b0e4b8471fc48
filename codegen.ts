/**
 * `npm run codegen`: print the Pothos schema to a sorted `schema.graphql`, then generate typed
 * documents (client preset) for the operations in `test/operations/` into `test/gql/`, and for
 * the console's in `console/src/operations/` into `console/src/gql/` (as strings, so the
 * browser bundle needs no GraphQL parser), and for the CLI's in `src/cli/operations/` into
 * `src/cli/gql/` (strings too).
 * `npm run codegen -- --check` writes nothing and fails when either is out of date (CI).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { CodegenConfig } from '@graphql-codegen/cli';
import { generate } from '@graphql-codegen/cli';
// The preset module itself, not the name 'client': by name the CLI resolves it from its own
// folder first, where npm may have nested an older client-preset (5.x, which prints other code).
import { preset as clientPresetModule } from '@graphql-codegen/client-preset';
import { printSchema } from 'graphql';
import { schema } from './src/schema/index.js';

/** The CLI types it with its own copy of plugin-helpers: the same shape, another declaration. */
type PresetOption = NonNullable<
  Extract<CodegenConfig['generates'][string], { preset?: unknown }>['preset']
>;
const clientPreset = clientPresetModule as unknown as PresetOption;

const check = process.argv.includes('--check');
const SCHEMA_FILE = 'schema.graphql';

const config: CodegenConfig = {
  schema: SCHEMA_FILE,
  generates: {
    'test/gql/': {
      documents: ['test/operations/*.graphql'],
      preset: clientPreset,
      config: {
        useTypeImports: true,
        enumsAsTypes: true,
        scalars: { SafeInt: 'number', DateTime: 'string' },
      },
      presetConfig: { fragmentMasking: false },
    },
    'console/src/gql/': {
      documents: ['console/src/operations/*.graphql'],
      preset: clientPreset,
      config: {
        useTypeImports: true,
        enumsAsTypes: true,
        documentMode: 'string',
        scalars: { SafeInt: 'number', DateTime: 'string' },
      },
      presetConfig: { fragmentMasking: false },
    },
    // The CLI's (src/cli): strings too, sent as they are over fetch.
    'src/cli/gql/': {
      documents: ['src/cli/operations/*.graphql'],
      preset: clientPreset,
      config: {
        useTypeImports: true,
        enumsAsTypes: true,
        documentMode: 'string',
        // As JSON carries them: ms as numbers, times as RFC 3339 text.
        scalars: { SafeInt: 'number', DateTime: 'string' },
      },
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
