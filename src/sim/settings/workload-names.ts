/** The names a workload is made of, apart from their schemas (the CLI reads them without loading zod). */
export const CONSUMER_LOOPS = ['pop-ack', 'ack-and-pop', 'ack-many-and-pop', 'consume', 'bulk-pop'] as const;
export type ConsumerLoop = (typeof CONSUMER_LOOPS)[number];

export const PROFILE_NAMES = ['basic', 'delays', 'full'] as const;
export type ProfileName = (typeof PROFILE_NAMES)[number];
