import type { Explanations } from './fidelity-page.js';

/**
 * Why a fidelity row's simulated and real rates differ, where the mechanism was found (by reading
 * the real run's history and process log next to the simulated one). A row that disagrees without
 * an entry here says so in docs/FIDELITY.md: a difference nobody has explained yet.
 */
export const FIDELITY_EXPLANATIONS: Explanations = {};
