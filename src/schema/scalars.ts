/** `JSON` and `DateTime`, the standard scalars of graphql-scalars (DESIGN.md §4). */
import { DateTimeResolver, JSONResolver } from 'graphql-scalars';
import { builder } from './builder.js';

builder.addScalarType('JSON', JSONResolver);
builder.addScalarType('DateTime', DateTimeResolver);
