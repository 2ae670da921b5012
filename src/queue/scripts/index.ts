import type { ScriptDef } from '../../redis/script.js';
import { atomicAck } from './atomic-ack.js';
import { atomicAckAndPop } from './atomic-ack-and-pop.js';
import { atomicAckManyAndPop } from './atomic-ack-many-and-pop.js';
import { atomicExtendLease } from './atomic-extend-lease.js';
import { atomicFindStale } from './atomic-find-stale.js';
import { atomicPeek } from './atomic-peek.js';
import { atomicPop } from './atomic-pop.js';
import { atomicPopById } from './atomic-pop-by-id.js';
import { atomicPromote } from './atomic-promote.js';
import { atomicPush } from './atomic-push.js';
import { atomicRelease } from './atomic-release.js';
import { atomicRemove } from './atomic-remove.js';
import { atomicRequeueExpired } from './atomic-requeue-expired.js';
import { atomicReschedule } from './atomic-reschedule.js';
import { legacyBulkPopLocal } from './legacy-bulk-pop-local.js';
import { legacyFindStale } from './legacy-find-stale.js';
import { legacyProcessUnacks } from './legacy-process-unacks.js';
import { scanMessages } from './scan-messages.js';

export {
  atomicAck,
  atomicAckAndPop,
  atomicAckManyAndPop,
  atomicExtendLease,
  atomicFindStale,
  atomicPeek,
  atomicPop,
  atomicPopById,
  atomicPromote,
  atomicPush,
  atomicRelease,
  atomicRemove,
  atomicRequeueExpired,
  atomicReschedule,
  legacyBulkPopLocal,
  legacyFindStale,
  legacyProcessUnacks,
  scanMessages,
};

/** Every script, for conformance tests and for a store that preloads them. */
export const ALL_SCRIPTS: readonly ScriptDef[] = [
  atomicAck,
  atomicAckAndPop,
  atomicAckManyAndPop,
  atomicExtendLease,
  atomicFindStale,
  atomicPeek,
  atomicPop,
  atomicPopById,
  atomicPromote,
  atomicPush,
  atomicRelease,
  atomicRemove,
  atomicRequeueExpired,
  atomicReschedule,
  legacyBulkPopLocal,
  legacyFindStale,
  legacyProcessUnacks,
  scanMessages,
];
