/**
 * An operation the caller's role does not allow in full is refused before any of it runs
 * (one answer for the whole operation, never a half-run one). Field auth (Pothos scope-auth,
 * `src/schema/builder.ts`) checks a field when the executor reaches it — after the fields
 * before it have run: a worker's `mutation { enqueue … setLimit … }` enqueued a job and then
 * answered FORBIDDEN with `data: null`, so the job's id was lost and a retrying client
 * enqueued it twice.
 *
 * This plugin walks the operation that is about to run — every field it selects, through
 * fragments, with `@skip`/`@include` evaluated against the request's variables — and compares
 * each field's auth scopes with the caller's role. One field above the role: the whole operation
 * is answered FORBIDDEN (HTTP 403) and nothing executes. It hooks envelop's `onExecute` and
 * `onSubscribe`, which Yoga runs for HTTP and SSE and `ws.ts` runs for graphql-ws, so every
 * transport gets the same refusal. Field auth stays in place behind it.
 *
 * The walk's verdict for an operation without `@skip`/`@include` is kept per (parsed operation,
 * role): Yoga's parse cache hands the same document to every request of the same text, so a
 * client repeating an operation pays for the walk once (it was ~5% of what a
 * `setLimit` request cost beyond `{ __typename }`).
 */
import {
  type DocumentNode,
  type FieldNode,
  type FragmentSpreadNode,
  type GraphQLCompositeType,
  GraphQLError,
  GraphQLIncludeDirective,
  type GraphQLSchema,
  GraphQLSkipDirective,
  getDirectiveValues,
  getNamedType,
  getOperationAST,
  getVariableValues,
  type InlineFragmentNode,
  isCompositeType,
  isInterfaceType,
  isObjectType,
  Kind,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { type Role, roleRank } from '../../context.js';

/** `Type.field` → the least role that may select it; fields with no auth scopes are absent. */
type RoleTable = ReadonlyMap<string, Role>;

/**
 * The least role of every field that has auth scopes, read from the scopes Pothos keeps in the
 * field's extensions (`pothosOptions.authScopes`). Scopes are role names (`{ worker: true }`):
 * a field is allowed to a role that has any scope it lists (scope-auth's default, `$any`).
 * @throws Error at start when a field's or a type's scopes are of another shape (a function,
 *   `$all`, a scope that is not a role), which this check could not evaluate before execution
 */
function roleTable(schema: GraphQLSchema): RoleTable {
  const table = new Map<string, Role>();
  for (const type of Object.values(schema.getTypeMap())) {
    if (type.name.startsWith('__') || !(isObjectType(type) || isInterfaceType(type))) continue;
    if (
      type.extensions?.pothosOptions &&
      'authScopes' in (type.extensions.pothosOptions as object)
    ) {
      throw new Error(`type ${type.name}: type-level authScopes are not checked before execution`);
    }
    for (const field of Object.values(type.getFields())) {
      const scopes = (field.extensions?.pothosOptions as { authScopes?: unknown } | undefined)
        ?.authScopes;
      if (scopes === undefined) continue;
      const where = `${type.name}.${field.name}`;
      if (scopes === null || typeof scopes !== 'object') {
        throw new Error(`${where}: authScopes must be a map of roles to true`);
      }
      let least: Role | null = null;
      for (const [scope, granted] of Object.entries(scopes)) {
        if (!(scope in roleRank) || typeof granted !== 'boolean') {
          throw new Error(`${where}: authScopes must be a map of roles to true (got "${scope}")`);
        }
        const role = scope as Role;
        if (granted && (least === null || roleRank[role] < roleRank[least])) least = role;
      }
      if (least === null) throw new Error(`${where}: authScopes grant no role`);
      table.set(where, least);
    }
  }
  return table;
}

/** Whether `@skip`/`@include` keep `node`, with the coerced variables (the executor's rule). */
function included(
  node: FieldNode | FragmentSpreadNode | InlineFragmentNode,
  variables: Record<string, unknown>,
): boolean {
  if (getDirectiveValues(GraphQLSkipDirective, node, variables)?.if === true) return false;
  if (getDirectiveValues(GraphQLIncludeDirective, node, variables)?.if === false) return false;
  return true;
}

/** The first field of the selection the role may not select, with its least role; or null. */
function firstRefused(
  schema: GraphQLSchema,
  document: DocumentNode,
  selectionSet: SelectionSetNode,
  parent: GraphQLCompositeType,
  variables: Record<string, unknown>,
  table: RoleTable,
  rank: number,
  seenFragments: Set<string>,
): { field: string; role: Role } | null {
  const walk = (set: SelectionSetNode, type: GraphQLCompositeType) =>
    firstRefused(schema, document, set, type, variables, table, rank, seenFragments);
  for (const selection of selectionSet.selections) {
    if (!included(selection, variables)) continue;
    if (selection.kind === Kind.FIELD) {
      const name = selection.name.value;
      // Meta fields (`__typename`, introspection) have no scopes; introspection has its own rule.
      if (name.startsWith('__') || !(isObjectType(parent) || isInterfaceType(parent))) continue;
      const field = parent.getFields()[name];
      if (!field) continue; // validation has refused it already
      const role = table.get(`${parent.name}.${name}`);
      if (role !== undefined && roleRank[role] > rank) return { field: name, role };
      const type = getNamedType(field.type);
      if (selection.selectionSet && isCompositeType(type)) {
        const refused = walk(selection.selectionSet, type);
        if (refused) return refused;
      }
    } else {
      // A fragment's fields are checked once, whatever it is spread under: the result does not
      // depend on where (its type condition names its type), and a fragment fan-out stays linear.
      let set: SelectionSetNode;
      let condition: string | undefined;
      if (selection.kind === Kind.FRAGMENT_SPREAD) {
        const name = selection.name.value;
        if (seenFragments.has(name)) continue;
        seenFragments.add(name);
        const fragment = document.definitions.find(
          (d) => d.kind === Kind.FRAGMENT_DEFINITION && d.name.value === name,
        );
        if (fragment?.kind !== Kind.FRAGMENT_DEFINITION) continue;
        set = fragment.selectionSet;
        condition = fragment.typeCondition.name.value;
      } else {
        set = selection.selectionSet;
        condition = selection.typeCondition?.name.value;
      }
      const type = condition === undefined ? parent : schema.getType(condition);
      if (!isCompositeType(type)) continue;
      const refused = walk(set, type);
      if (refused) return refused;
    }
  }
  return null;
}

/** What an execution hook is handed, as far as this check needs it. */
interface Execution {
  args: {
    schema: GraphQLSchema;
    document: DocumentNode;
    operationName?: string | null;
    variableValues?: Readonly<Record<string, unknown>> | null;
    contextValue: unknown;
  };
  setResultAndStopExecution(result: { errors: GraphQLError[] }): void;
}

/** The first field a role may not select, with its least role; null when it may select all. */
type Verdict = { field: string; role: Role } | null;

/**
 * What the walk found for an operation whose selection (fragments included) carries no
 * `@skip`/`@include`: its result then depends on nothing but the operation and the role, so it
 * is worked out once per (operation, role). Keyed by the parsed operation node, which lives as
 * long as Yoga's parse cache keeps its document: a client cannot grow this with names.
 */
interface OperationVerdicts {
  /** The selection has `@skip`/`@include`: the walk reads the variables, every time. */
  readonly conditional: boolean;
  readonly byRole: Map<Role, Verdict>;
}

/** Whether any selection of `document` (operation or fragment) carries `@skip`/`@include`. */
function hasConditionals(document: DocumentNode): boolean {
  const conditional = (set: SelectionSetNode): boolean =>
    set.selections.some(
      (selection) =>
        selection.directives?.some(
          (d) =>
            d.name.value === GraphQLSkipDirective.name ||
            d.name.value === GraphQLIncludeDirective.name,
        ) ||
        (selection.kind !== Kind.FRAGMENT_SPREAD &&
          selection.selectionSet !== undefined &&
          conditional(selection.selectionSet)),
    );
  return document.definitions.some(
    (d) =>
      (d.kind === Kind.OPERATION_DEFINITION || d.kind === Kind.FRAGMENT_DEFINITION) &&
      conditional(d.selectionSet),
  );
}

/**
 * The FORBIDDEN answer for an operation `role` may not run in full, or null when it may (or
 * when the operation cannot run at all: no such operation, variables that do not coerce — the
 * executor reports those, and runs nothing).
 */
function refusal(
  execution: Execution['args'],
  table: RoleTable,
  cache: WeakMap<OperationDefinitionNode, OperationVerdicts>,
): GraphQLError | null {
  const role = (execution.contextValue as { role?: Role }).role;
  if (role === undefined) return null;
  const operation = getOperationAST(execution.document, execution.operationName);
  if (!operation) return null;
  const root = execution.schema.getRootType(operation.operation);
  if (!root) return null;
  const walk = (variables: Record<string, unknown>): Verdict =>
    firstRefused(
      execution.schema,
      execution.document,
      operation.selectionSet,
      root,
      variables,
      table,
      roleRank[role],
      new Set(),
    );
  let verdicts = cache.get(operation);
  if (!verdicts) {
    verdicts = { conditional: hasConditionals(execution.document), byRole: new Map() };
    cache.set(operation, verdicts);
  }
  let refused: Verdict;
  if (verdicts.conditional) {
    const variables = coerced(execution, operation);
    if (!variables) return null;
    refused = walk(variables);
  } else {
    // Without @skip/@include no variable can change the walk; only a refusal needs to know
    // that the variables coerce (an operation that cannot run is the executor's to answer).
    let known = verdicts.byRole.get(role);
    if (known === undefined) {
      known = walk({});
      verdicts.byRole.set(role, known);
    }
    if (known === null || !coerced(execution, operation)) return null;
    refused = known;
  }
  if (!refused) return null;
  return new GraphQLError(
    `this operation needs a role your token does not have: "${refused.field}" needs ${refused.role}, the token is ${role}; nothing was run`,
    { extensions: { code: 'FORBIDDEN', http: { status: 403 } } },
  );
}

/** The request's variables coerced for `operation`, or null when they do not coerce. */
function coerced(
  execution: Execution['args'],
  operation: OperationDefinitionNode,
): Record<string, unknown> | null {
  const variables = getVariableValues(
    execution.schema,
    operation.variableDefinitions ?? [],
    execution.variableValues ?? {},
  );
  return variables.coerced ?? null;
}

/**
 * The envelop plugin. Put it before plugins that replace `execute`/`subscribe`, so a refused
 * operation reaches none of them.
 */
export function useOperationRoleCheck(schema: GraphQLSchema): Plugin {
  const table = roleTable(schema);
  const cache = new WeakMap<OperationDefinitionNode, OperationVerdicts>();
  const check = ({ args, setResultAndStopExecution }: Execution): void => {
    const error = refusal(args, table, cache);
    if (error) setResultAndStopExecution({ errors: [error] });
  };
  return {
    onExecute: (payload) => check(payload as unknown as Execution),
    onSubscribe: (payload) => check(payload as unknown as Execution),
  };
}
