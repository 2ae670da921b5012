import seedrandom from 'seedrandom';

const HEX_BYTE = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

/**
 * Seeded randomness. Each component draws from its own stream, derived from the run's seed and
 * the component's name, so that adding a component never shifts the draws of another.
 */
export class Rng {
  private readonly next: () => number;

  constructor(
    readonly seed: string,
    readonly name = 'root',
  ) {
    this.next = seedrandom(`${seed}/${name}`);
  }

  stream(name: string): Rng {
    return new Rng(this.seed, `${this.name}/${name}`);
  }

  /** Uniform in [0, 1). */
  float(): number {
    return this.next();
  }

  /** Integer in [lo, hi]. */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }

  chance(p: number): boolean {
    return p > 0 && this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!;
  }

  /** 128 random bits as 32 hex digits (the simulator's stand-in for crypto.randomUUID). */
  id128(): string {
    let out = '';
    for (let i = 0; i < 4; i++) {
      // The same digits as toString(16).padStart(8, '0'), a byte at a time (4× cheaper; every lease token is one).
      const n = Math.floor(this.next() * 2 ** 32);
      out += HEX_BYTE[n >>> 24]! + HEX_BYTE[(n >>> 16) & 255]! + HEX_BYTE[(n >>> 8) & 255]! + HEX_BYTE[n & 255]!;
    }
    return out;
  }

  /** Exponential with the given mean. */
  exponential(mean: number): number {
    return -Math.log(1 - this.next()) * mean;
  }
}
