/**
 * Which network a real Dynomite twin's peer links run: `configured` (the default), the configuration's
 * as peer-link-delays.ts draws it, or `loopback`, the links as they are (well under 1 ms). Apart from
 * the drawing so that the CLI's start-up loads nothing more for its flag's choices.
 */
export const PEER_LINKS = ['configured', 'loopback'] as const;
export type PeerLinks = (typeof PEER_LINKS)[number];
