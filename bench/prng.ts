// Deterministic pseudo-random numbers for the bench's data, so every answer can be recomputed
// from the generator alone. mulberry32 for streams; a stateless hash for random access.

export { mulberry32 } from '../engine/testing/prng.ts';

/** A uniform float in [0, 1) from two integers, without state (a murmur3-style finalizer). */
export function hashUniform(a: number, b: number): number {
  let h = Math.imul(a ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(b + 0x632be5ab, 0xc2b2ae35);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return (h >>> 0) / 4294967296;
}
