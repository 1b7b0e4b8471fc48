/**
 * Levels on the rota, as the readers see them (DESIGN.md §3, "Levels"; the writers are
 * `src/lua/includes/levels.lua`): the ring `P:{Q}:ring` is the rota of the default level, 5,
 * and `P:{Q}:levels` holds the groups of the other levels, group → level × 10^13 + turn. The
 * rota's order, the order claims take it: levels 1–4 (in `levels`' order), the ring, levels
 * 6–9.
 */
import { Defaults } from '../defaults.js';
import type { RotaEntry } from '../types.js';

/** A level's turns stay below this; `levels` scores are level × LEVEL_SPAN + turn. */
export const LEVEL_SPAN = 1e13;

/** The level a `levels` score stands for (1–9). */
export function levelOfTurn(score: string | number): number {
  return Math.floor(Number(score) / LEVEL_SPAN);
}

/**
 * The rota in claim order, each group with its level: `levels` as ZRANGE … WITHSCORES answers
 * it (group, score, …) and the ring head first.
 */
export function rotaEntries(levels: readonly string[], ring: readonly string[]): RotaEntry[] {
  const before: RotaEntry[] = [];
  const after: RotaEntry[] = [];
  for (let i = 0; i + 1 < levels.length; i += 2) {
    const level = levelOfTurn(levels[i + 1] as string);
    (level < Defaults.priority ? before : after).push({ group: levels[i] as string, level });
  }
  return [...before, ...ring.map((group) => ({ group, level: Defaults.priority })), ...after];
}
