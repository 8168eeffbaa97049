/** The default window (`--evidence-window`): older evidence says nothing about a mailbox now. */
export const DEFAULT_EVIDENCE_WINDOW_MS = 180 * 86_400_000;
