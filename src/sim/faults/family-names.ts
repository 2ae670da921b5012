/** Every fault family's name, apart from its package (the CLI reads them without loading the packages). */
export const FAULT_FAMILY_LIST = [
  'node-crash',
  'partition',
  'client-failover',
  'client-crash',
  'client-pause',
  'clock',
  'consumer-clocks',
  'lag-spike',
  'backend-crash',
  'node-stall',
  'memory-pressure',
  'eviction',
] as const;
