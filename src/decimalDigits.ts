/**
 * The one rule for a whole number a person writes — a setting (`PORT`, the `…_MS` periods,
 * src/server/config.ts) or a CLI argument or option (`limit g 3`, `--first 5`, `--timeout 100`,
 * src/cli/options.ts): plain decimal digits (0-9) and nothing else. JavaScript's `Number` (and
 * zod's `coerce`) read `0x10` as 16, `1e3` as 1000, ` 7 ` as 7 and `+5` as 5, none of which an
 * operator means by accident, so each is refused (docs/server.md "Configuration", docs/cli.md; DESIGN.md §6).
 *
 * Kept here, one rule for the server and the CLI: the CLI does not load the server's config.
 */
export const DECIMAL_DIGITS = /^[0-9]+$/;

/** What a refusal says a number must be written as, after its range or unit. */
export const DECIMAL_DIGITS_ONLY =
  'in plain decimal digits (no space, sign, point, exponent or 0x)';
