/**
 * A look-up asked once and its answer kept for the client's life (who the token is does not
 * change); a failed look-up is not kept, so the next call asks the host again.
 */
export function rememberedLookup<T>(lookup: () => Promise<T>): () => Promise<T> {
  let kept: Promise<T> | null = null;
  return () => {
    if (kept) return kept;
    const asked = lookup();
    kept = asked;
    asked.catch(() => {
      if (kept === asked) kept = null;
    });
    return asked;
  };
}
