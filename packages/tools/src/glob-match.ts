/**
 * Glob matching with `Bun.Glob` semantics (the README's "glob"), reached through the global `Bun`
 * so the built package needs no Bun types and imports nothing from `bun:*`. The one
 * rule: every glob in the tools is matched here, so `glob` and grep's `glob` filter
 * agree on what a pattern means.
 */

/** Something that says whether a path matches a pattern. */
export interface GlobMatcher {
  match(path: string): boolean;
}

type GlobConstructor = new (pattern: string) => GlobMatcher;

/** A matcher for `pattern`; throws (an operator's problem, logged by handleToolCall) outside Bun. */
export function globMatcher(pattern: string): GlobMatcher {
  const Glob = (globalThis as { Bun?: { Glob?: GlobConstructor } }).Bun?.Glob;
  if (Glob === undefined) throw new Error('@ws/tools matches globs with Bun.Glob; run it under Bun.');
  return new Glob(pattern);
}
