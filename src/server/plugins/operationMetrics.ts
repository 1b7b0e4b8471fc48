/**
 * Counts GraphQL operations for `GET /metrics` (DESIGN.md §4.7):
 * `ringmaster_graphql_operations_total{operation, type, result}`.
 *
 * - `operation`: the executed operation's own name from the document (never the request's
 *   `operationName` text, which a client may fill with anything); unnamed → `anonymous`; past
 *   {@link MAX_OPERATION_NAMES} distinct names, a new one → `other`, so a client cannot grow the
 *   series without bound. `type`: query, mutation or subscription (`unknown` when the document
 *   names no operation that exists).
 * - `result`: `error` when the result carries errors (a refused role, a failed resolver, a
 *   document that does not validate), else `ok`; a subscription counts once, when it starts.
 *
 * Hooks envelop's `onValidate`, `onExecute` and `onSubscribe`, which Yoga runs for HTTP and SSE
 * and `ws.ts` for graphql-ws. It is listed before `useOperationRoleCheck`, so an operation that
 * plugin refuses (its result set, execution stopped) still reaches this plugin's after-hook.
 * A request refused before GraphQL runs (no token, a body that is not JSON, CSRF) is not an
 * operation and is not counted.
 *
 * Why not `@graphql-yoga/plugin-prometheus`: it fits our Yoga and prom-client, but it splits
 * requests and errors into separate metrics by phase (no single result label) and labels raw
 * operation names, so the bound on names would need a custom `fillLabelsFn` on each of its
 * metrics; these few lines say exactly what the contract lists.
 */
import { type DocumentNode, getOperationAST } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Counter } from 'prom-client';

/** Distinct operation names counted under their own label, at most; later ones are `other`. */
export const MAX_OPERATION_NAMES = 200;

type Labels = 'operation' | 'type' | 'result';

/** The plugin; `counter` is `ServerMetrics.operations`. */
export function useOperationMetrics(counter: Counter<Labels>): Plugin {
  const names = new Set<string>();
  const labelsOf = (document: DocumentNode, operationName: string | null | undefined) => {
    const operation = getOperationAST(document, operationName ?? undefined);
    const name = operation?.name?.value;
    let label = 'anonymous';
    if (name !== undefined) {
      if (names.has(name)) label = name;
      else if (names.size < MAX_OPERATION_NAMES) {
        names.add(name);
        label = name;
      } else label = 'other';
    }
    return { operation: label, type: operation?.operation ?? 'unknown' };
  };
  const hasErrors = (result: unknown): boolean =>
    typeof result === 'object' &&
    result !== null &&
    'errors' in result &&
    Array.isArray((result as { errors?: unknown }).errors) &&
    ((result as { errors: unknown[] }).errors.length ?? 0) > 0;

  return {
    onValidate({ params }) {
      return ({ valid }) => {
        if (valid) return;
        const op = params.documentAST;
        counter.inc({ ...labelsOf(op, undefined), result: 'error' });
      };
    },
    onExecute({ args }) {
      const labels = labelsOf(args.document, args.operationName);
      return {
        onExecuteDone({ result }) {
          counter.inc({ ...labels, result: hasErrors(result) ? 'error' : 'ok' });
        },
      };
    },
    onSubscribe({ args }) {
      const labels = labelsOf(args.document, args.operationName);
      return {
        onSubscribeResult({ result }) {
          counter.inc({ ...labels, result: hasErrors(result) ? 'error' : 'ok' });
        },
      };
    },
  };
}
