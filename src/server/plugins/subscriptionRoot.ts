/**
 * A subscription's root field may not be skipped or included conditionally (`@skip`/`@include`
 * at the operation's top level, directly or through fragments): the GraphQL specification's
 * September 2025 edition makes that a validation rule ("Single Root Field"), graphql-js 16 does
 * not. Without it, `@include(if: false)` on the root field made graphql-js' executor throw
 * while starting the stream, and `@skip(if: $var)` made its SingleFieldSubscriptionsRule throw
 * during validation — an error with no code instead of GRAPHQL_VALIDATION_FAILED (DESIGN.md §5).
 *
 * The rule here reports that case, and runs graphql-js' own SingleFieldSubscriptionsRule for
 * every other subscription (exactly one root field, not an introspection field).
 */
import {
  type ASTVisitor,
  type FragmentDefinitionNode,
  GraphQLError,
  Kind,
  type OperationDefinitionNode,
  type SelectionSetNode,
  SingleFieldSubscriptionsRule,
  specifiedRules,
  type ValidationContext,
  type ValidationRule,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';

const CONDITIONAL = new Set(['skip', 'include']);

/** Whether a root selection (or one of the fragments it spreads) carries `@skip`/`@include`. */
function conditionalRoot(
  selectionSet: SelectionSetNode,
  fragment: (name: string) => FragmentDefinitionNode | null | undefined,
  seen: Set<string>,
): boolean {
  for (const selection of selectionSet.selections) {
    if (selection.directives?.some((d) => CONDITIONAL.has(d.name.value))) return true;
    if (selection.kind === Kind.INLINE_FRAGMENT) {
      if (conditionalRoot(selection.selectionSet, fragment, seen)) return true;
    } else if (selection.kind === Kind.FRAGMENT_SPREAD && !seen.has(selection.name.value)) {
      seen.add(selection.name.value);
      const definition = fragment(selection.name.value);
      if (definition && conditionalRoot(definition.selectionSet, fragment, seen)) return true;
    }
  }
  return false;
}

/** SingleFieldSubscriptionsRule, plus: the root field is not conditional. */
export const SubscriptionRootRule: ValidationRule = (context: ValidationContext): ASTVisitor => {
  const single = SingleFieldSubscriptionsRule(context) as {
    OperationDefinition(node: OperationDefinitionNode): void;
  };
  return {
    OperationDefinition(node) {
      if (node.operation !== 'subscription') return;
      if (conditionalRoot(node.selectionSet, (name) => context.getFragment(name), new Set())) {
        const name = node.name ? `Subscription "${node.name.value}"` : 'Anonymous Subscription';
        context.reportError(
          new GraphQLError(`${name} must not use @skip or @include on its root field.`, {
            nodes: node,
          }),
        );
        return;
      }
      single.OperationDefinition(node);
    },
  };
};

/** Validate with {@link SubscriptionRootRule} in place of graphql-js' SingleFieldSubscriptionsRule. */
export function useSubscriptionRootRule(): Plugin {
  return {
    // The rules arrive when validation runs (Yoga's engine and graphql-armor add theirs).
    onValidate({ setValidationFn, validateFn }) {
      setValidationFn((schema, document, rules, ...rest) =>
        validateFn(
          schema,
          document,
          (rules ?? specifiedRules).map((rule: ValidationRule) =>
            rule === SingleFieldSubscriptionsRule ? SubscriptionRootRule : rule,
          ),
          ...rest,
        ),
      );
    },
  };
}
