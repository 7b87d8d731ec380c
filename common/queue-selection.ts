/**
 * The review queue's selection once the fix `decidedId` is decided and leaves
 * the list: the card after it, or the one before it when it was the last, so
 * the reviewer keeps their place instead of going back to the top. When the
 * reviewer has moved to another card meanwhile, that card stays selected.
 * `selectedId` null (or no longer listed) means the first card is selected.
 * Returns the new selected id, `selectedId` unchanged, or null when nothing is left.
 */
export function selectionAfterDecision(ids: readonly string[], selectedId: string | null, decidedId: string): string | null {
  const at = ids.indexOf(decidedId);
  if (at < 0) return selectedId;
  const shown = selectedId !== null && ids.includes(selectedId) ? selectedId : (ids[0] ?? null);
  if (shown !== decidedId) return selectedId;
  return ids[at + 1] ?? ids[at - 1] ?? null;
}
