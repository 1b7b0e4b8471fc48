/**
 * `JSON`, `DateTime` and `SafeInt`, the standard scalars of graphql-scalars (DESIGN.md §4).
 * `SafeInt` carries ms values past GraphQL's `Int` (32 bits: 24.8 days): a 30-day delay, a
 * year of retention.
 */
import { GraphQLError, Kind, type ValueNode } from 'graphql';
import { DateTimeResolver, JSONResolver, SafeIntResolver } from 'graphql-scalars';
import { builder } from './builder.js';

/**
 * An inline value as JSON, refusing what JSON has no value for: an identifier (`NaN`,
 * `Infinity`, `FOO`), which graphql-scalars reads as undefined, so `{ a: NaN }` would be stored
 * as `{}` — what DESIGN.md §5 ("Payloads") refuses rather than drop. Refused while the document
 * is validated: nothing runs.
 */
function jsonLiteral(ast: ValueNode, variables?: Record<string, unknown> | null): unknown {
  if (ast.kind === Kind.ENUM) {
    throw new GraphQLError(
      `JSON has no value ${ast.value}: write a string ("${ast.value}"), a number, true, false or null`,
      { nodes: ast },
    );
  }
  if (ast.kind === Kind.OBJECT) {
    const value: Record<string, unknown> = Object.create(null);
    for (const field of ast.fields) value[field.name.value] = jsonLiteral(field.value, variables);
    return value;
  }
  if (ast.kind === Kind.LIST) return ast.values.map((item) => jsonLiteral(item, variables));
  return JSONResolver.parseLiteral(ast, variables);
}

builder.addScalarType('JSON', JSONResolver, { parseLiteral: jsonLiteral });
builder.addScalarType('DateTime', DateTimeResolver);
builder.addScalarType('SafeInt', SafeIntResolver);
