export interface ReplicaComparison {
  readonly equal: boolean;
  /** Keys whose value differs between at least two replicas (absent counts as a value). */
  readonly differingKeys: readonly string[];
}

/** Compares replicas' keyspaces (one dump per replica, key → value), key by key. */
export function compareDumps(dumps: readonly Readonly<Record<string, unknown>>[]): ReplicaComparison {
  const keys = [...new Set(dumps.flatMap((d) => Object.keys(d)))].sort();
  const differingKeys = keys.filter((k) => new Set(dumps.map((d) => JSON.stringify(d[k] ?? null))).size > 1);
  return { equal: differingKeys.length === 0, differingKeys };
}
