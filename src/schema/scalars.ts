/**
 * `JSON`, `DateTime` and `SafeInt`, the standard scalars of graphql-scalars (DESIGN.md §4).
 * `SafeInt` carries ms values past GraphQL's `Int` (32 bits: 24.8 days): a 30-day delay, a
 * year of retention.
 */
import { DateTimeResolver, JSONResolver, SafeIntResolver } from 'graphql-scalars';
import { builder } from './builder.js';

builder.addScalarType('JSON', JSONResolver);
builder.addScalarType('DateTime', DateTimeResolver);
builder.addScalarType('SafeInt', SafeIntResolver);
