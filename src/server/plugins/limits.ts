/**
 * Query limits (DESIGN.md §5, part of hardening the API against hostile clients): every document is bounded before it runs, on
 * every transport (HTTP, SSE and graphql-ws share Yoga's envelop, see `ws.ts`). The numbers live
 * here and only here; docs/server.md ("Hardening", Query limits) quotes them.
 *
 * How they were chosen (test/api/hostile.limits.test.ts checks every real operation against them):
 * the schema has no cycles, so the deepest real selection is five fields (`queue → groups →
 * edges → node → id`); the largest operation (of test/operations and the console's) is 87
 * tokens and costs 84; none uses an alias or a directive. GraphiQL's introspection query
 * (~200 tokens) is exempt from depth and cost: graphql-js's MaxIntrospectionDepthRule stops the
 * `types → fields → type → fields …` cycle instead.
 */
import { costLimitRule } from '@escape.tech/graphql-armor-cost-limit';
import { maxAliasesRule } from '@escape.tech/graphql-armor-max-aliases';
import { maxDepthRule } from '@escape.tech/graphql-armor-max-depth';
import { maxDirectivesRule } from '@escape.tech/graphql-armor-max-directives';
import { maxTokensPlugin } from '@escape.tech/graphql-armor-max-tokens';
import { GraphQLError, type ValidationContext, type ValidationRule } from 'graphql';
import type { Plugin } from 'graphql-yoga';

/**
 * Operations one WebSocket may hold open at once. graphql-ws sets no bound, and each live
 * subscription holds a listener and its conflation slot: 20,000 on one socket took a server from
 * 127 MB to 1.2 GB. The console opens 3.
 */
export const MAX_SUBSCRIPTIONS_PER_SOCKET = 100;

/**
 * Bytes one HTTP request body or one WebSocket frame may hold (1 MiB, DESIGN.md §5); a job
 * payload is at most 512 KiB, so this leaves room for the rest of an operation. Over it: 413 on
 * HTTP, close 1009 on a WebSocket (ws' `maxPayload`, not its default 100 MiB).
 */
export const MAX_REQUEST_BYTES = 1_048_576;

export const QUERY_LIMITS = {
  /** Field nesting (fragments flattened). The deepest real selection is 5. */
  depth: 10,
  /** Aliased fields per operation (fragments included). Real operations use none. */
  aliases: 20,
  /**
   * Lexical tokens per document (the parser stops at the limit, so nesting is bounded too); a
   * 1,000-token document validates in well under 50 ms. Large payloads belong in variables,
   * which are not tokens.
   */
  tokens: 1_000,
  /** Directives per operation. Real operations use none. */
  directives: 20,
  /**
   * graphql-armor's cost: 2 per object, 1 per scalar, × 1.5 per level, × a literal `first`.
   * GroupsPage costs 84 with `first` as a variable and about 36,000 with `first: 500` written
   * inline (46,000 with `reason` and `blockedBy`) — hence 100,000: two such pages pass, three do
   * not, and a fragment fan-out (2^n copies of a field) is stopped long before it expands.
   */
  cost: 100_000,
} as const;

/**
 * graphql-armor reports a validation limit by throwing "Syntax Error: …" with no code. Report it
 * instead as an ordinary validation error: Yoga then answers 400 with GRAPHQL_VALIDATION_FAILED,
 * like any other invalid document, and validation goes on to report the rest.
 */
const report = (context: ValidationContext | null, error: GraphQLError): void => {
  const message = error.message.replace(/^Syntax Error: /, '');
  context?.reportError(new GraphQLError(message));
};
const rejection = { propagateOnRejection: false, onReject: [report] };

/** The limits judged by validation rules: every one but the tokens (judged by the parser). */
const LIMIT_RULES = [
  maxDepthRule({ n: QUERY_LIMITS.depth, flattenFragments: true, ...rejection }),
  maxAliasesRule({ n: QUERY_LIMITS.aliases, ...rejection }),
  maxDirectivesRule({ n: QUERY_LIMITS.directives, ...rejection }),
  costLimitRule({ maxCost: QUERY_LIMITS.cost, flattenFragments: true, ...rejection }),
] as ValidationRule[];

/**
 * The Yoga plugins enforcing {@link QUERY_LIMITS}.
 *
 * The validation limits are judged after GraphQL's own rules (graphql-js' specifiedRules and
 * the rules other plugins add), and only on a document those find valid: a document that is not
 * valid GraphQL is answered with its own errors alone. graphql-armor's rules judge the document
 * when validation enters an operation, before GraphQL's rules reach the values in it, and the
 * cost rule multiplies by a `first` written inline whatever it holds: `groups(first:
 * 99999999999)`, beyond GraphQL's Int, was answered with a cost over the limit (first) instead
 * of "Int cannot represent non 32-bit signed integer value". A document GraphQL finds valid is
 * judged by every limit as before, in a second walk (Yoga's validation cache keeps the outcome
 * per document); one it refuses is refused anyway, at no more cost than before (the limits
 * refused without stopping the pass, so GraphQL's rules always ran in full).
 */
export function useQueryLimits(): Plugin[] {
  return [
    // At parse time: a document over the limit is never built (GRAPHQL_PARSE_FAILED).
    maxTokensPlugin({ n: QUERY_LIMITS.tokens }),
    {
      onValidate({ setValidationFn, validateFn }) {
        setValidationFn((schema, document, rules, ...rest) => {
          const errors = validateFn(schema, document, rules, ...rest);
          return errors.length > 0 ? errors : validateFn(schema, document, LIMIT_RULES, ...rest);
        });
      },
    },
  ] as Plugin[];
}
