/**
 * `INTROSPECTION=false` (DESIGN.md §6): `__schema` and `__type` are refused on every transport,
 * and validation errors stop suggesting field, argument and type names ("Did you mean …?"),
 * which would otherwise spell the schema out one guess at a time. `__typename` still works.
 *
 * Not `@graphql-yoga/plugin-disable-introspection`: it marks requests in `onRequestParse`, a hook
 * that runs for HTTP only, so operations over graphql-ws (which enter at `getEnveloped`) were
 * never refused.
 */
import { NoSchemaIntrospectionCustomRule } from 'graphql';
import type { Plugin } from 'graphql-yoga';

const SUGGESTION = / Did you mean .*\?$/;

export function useNoIntrospection(): Plugin {
  return {
    onValidate({ addValidationRule }) {
      addValidationRule(NoSchemaIntrospectionCustomRule);
      return ({ result }) => {
        for (const error of result) error.message = error.message.replace(SUGGESTION, '');
      };
    },
  };
}
