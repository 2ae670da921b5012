/**
 * Key names, Dyno-compatible: `<prefix>.QUEUE.<queue>.<shard>`, `<prefix>.UNACK.<queue>.<shard>`,
 * `<prefix>.MESSAGE.<queue>`; atomic mode adds READY (per shard), META, LEASE and COUNTERS.
 * With `hashTag`, the queue name is written `{<queue>}` so every key of the queue, the shared
 * payload hash included, hashes to one Redis Cluster slot and any script may touch all of them.
 */
export class QueueKeys {
  private readonly q: string;

  constructor(
    readonly prefix: string,
    readonly queueName: string,
    hashTag: boolean,
  ) {
    this.q = hashTag ? `{${queueName}}` : queueName;
  }

  queue(shard: string): string {
    return `${this.prefix}.QUEUE.${this.q}.${shard}`;
  }
  ready(shard: string): string {
    return `${this.prefix}.READY.${this.q}.${shard}`;
  }
  unack(shard: string): string {
    return `${this.prefix}.UNACK.${this.q}.${shard}`;
  }
  get message(): string {
    return `${this.prefix}.MESSAGE.${this.q}`;
  }
  get meta(): string {
    return `${this.prefix}.META.${this.q}`;
  }
  get leases(): string {
    return `${this.prefix}.LEASE.${this.q}`;
  }
  get counters(): string {
    return `${this.prefix}.COUNTERS.${this.q}`;
  }
}
