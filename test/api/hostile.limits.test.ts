/**
 * The query limits (src/server/plugins/limits.ts) let every real operation through — the API
 * tests' (test/operations), the console's, the curl examples of README.md and docs/*.md,
 * GraphiQL's introspection — and each limit sits exactly where limits.ts puts it: n passes,
 * n + 1 is refused.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { getIntrospectionQuery, type OperationDefinitionNode, parse, print } from 'graphql';
import { describe, expect, it } from 'vitest';
import { QUERY_LIMITS } from '../../src/server/plugins/limits.js';
import {
  aliases,
  directives,
  GROUPS_INLINE_500,
  ofTypeChain,
  QUEUE,
} from '../fixtures/hostile/documents.js';
import { useSeededServer } from '../support/seededServer.js';

const hostile = useSeededServer(QUEUE);

describe('the query limits let every real operation through', () => {
  // Every operation a real client sends: the API tests' and the console's (when it is there),
  // each as its client sends it: with the fragments it uses, transitively, from its own folder.
  const operations = ['test/operations', 'console/src/operations']
    .filter((dir) => existsSync(dir))
    .flatMap((dir) => {
      const source = readdirSync(dir)
        .filter((f) => f.endsWith('.graphql'))
        .map((f) => readFileSync(`${dir}/${f}`, 'utf8'))
        .join('\n');
      const definitions = parse(source).definitions;
      const fragments = new Map(
        definitions.flatMap((d) => (d.kind === 'FragmentDefinition' ? [[d.name.value, d]] : [])),
      );
      return definitions
        .filter((d): d is OperationDefinitionNode => d.kind === 'OperationDefinition')
        .map((operation) => {
          const texts = [print(operation)];
          const used = new Set<string>();
          for (let k = 0; k < texts.length; k++) {
            for (const [, name] of (texts[k] as string).matchAll(/\.\.\.([_A-Za-z]\w*)/g)) {
              const fragment = fragments.get(name as string);
              if (fragment && !used.has(name as string)) {
                used.add(name as string);
                texts.push(print(fragment));
              }
            }
          }
          return [`${dir}: ${operation.name?.value ?? 'anonymous'}`, texts.join('\n')] as const;
        });
    });
  const docs = ['README.md', ...readdirSync('docs').map((name) => `docs/${name}`)]
    .filter((file) => file.endsWith('.md'))
    .map((file) => readFileSync(file, 'utf8'))
    .join('\n');
  const readmeQueries = [...docs.matchAll(/"query": "((?:[^"\\]|\\.)*)"/g)].map((m) =>
    JSON.parse(`"${m[1]}"`),
  );

  it('there are operations to check (test/operations, the console’s, the docs’ curl examples)', () => {
    expect(operations.length).toBeGreaterThanOrEqual(14);
    expect(readmeQueries.length).toBeGreaterThanOrEqual(14);
  });

  const validateOnServer = (source: string) => {
    const { parse: p, validate, schema } = hostile.api.server.yoga.getEnveloped({});
    return validate(schema, p(source)).map((e: { message: string }) => e.message);
  };

  it.each(operations)('%s', (_name, source) => {
    expect(validateOnServer(source)).toEqual([]);
  });

  it('the curl examples of README.md and docs/*.md, GraphiQL’s introspection, and a page of 500 written inline', () => {
    for (const query of readmeQueries) expect(validateOnServer(query)).toEqual([]);
    const introspection = getIntrospectionQuery({
      descriptions: true,
      specifiedByUrl: true,
      directiveIsRepeatable: true,
      schemaDescription: true,
      inputValueDeprecation: true,
      oneOf: true,
    });
    expect(validateOnServer(introspection)).toEqual([]);
    expect(validateOnServer(`{ ${GROUPS_INLINE_500} }`)).toEqual([]);
    expect(validateOnServer(`{ p1: ${GROUPS_INLINE_500} p2: ${GROUPS_INLINE_500} }`)).toEqual([]);
  });

  it('each limit is exactly where limits.ts puts it: n passes, n + 1 is refused', () => {
    expect(validateOnServer(aliases(QUERY_LIMITS.aliases))).toEqual([]);
    expect(validateOnServer(aliases(QUERY_LIMITS.aliases + 1))).toEqual([
      `Aliases limit of ${QUERY_LIMITS.aliases} exceeded, found ${QUERY_LIMITS.aliases + 1}.`,
    ]);
    expect(validateOnServer(directives(QUERY_LIMITS.directives))).toEqual([]);
    expect(validateOnServer(directives(QUERY_LIMITS.directives + 1))).toEqual([
      `Directives limit of ${QUERY_LIMITS.directives} exceeded, found ${QUERY_LIMITS.directives + 1}.`,
    ]);
    // ofTypeChain(n) is n + 4 fields deep: __type, fields, type, n × ofType, name.
    expect(validateOnServer(ofTypeChain(QUERY_LIMITS.depth - 4))).toEqual([]);
    expect(validateOnServer(ofTypeChain(QUERY_LIMITS.depth - 3))).toEqual([
      `Query depth limit of ${QUERY_LIMITS.depth} exceeded, found ${QUERY_LIMITS.depth + 1}.`,
    ]);
    // Exactly k tokens: `{ queues { name }` (5), k - 6 × `__typename`, `}`.
    const tokens = (k: number) => `{ queues { name } ${'__typename '.repeat(k - 6)}}`;
    const { parse: p } = hostile.api.server.yoga.getEnveloped({});
    expect(() => p(tokens(QUERY_LIMITS.tokens))).not.toThrow();
    expect(() => p(tokens(QUERY_LIMITS.tokens + 1))).toThrow(/Token limit/);
  });
});
