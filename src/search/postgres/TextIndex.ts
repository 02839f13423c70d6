/**
 * What the PostgreSQL index derives from a document besides its stored fields: folded words for the tsvector and
 * the ancestors of its directory for the path tree.
 */

/**
 * UTF-8 bytes of folded text turned into a tsvector. PostgreSQL refuses a tsvector over 1 MB; lexemes, positions
 * and entry headers take at most about three times the text's bytes, so a quarter of that keeps clear of it.
 */
export const indexedPrefixBytes = 256 * 1024

const encoder = new TextEncoder()

/** The `folding` analyzer of the reference done here (PGlite has no unaccent): NFKD, marks removed, lower case. */
export const fold = (text: string) =>
  text
    .normalize("NFKD")
    .replace(/\p{M}+/gu, "")
    .toLowerCase()

/** Folded prefix of `content` of at most `indexedPrefixBytes` UTF-8 bytes, never cut inside a character. */
export const indexedPrefix = (content: string) => {
  // No character takes fewer than one byte, so folding more characters than that bound would be wasted.
  const folded = fold(content.length > indexedPrefixBytes ? content.slice(0, indexedPrefixBytes) : content)
  if (folded.length * 3 <= indexedPrefixBytes) return folded
  const { read } = encoder.encodeInto(folded, new Uint8Array(indexedPrefixBytes))
  return folded.slice(0, read)
}

/** `/a/b/c` → `/a`, `/a/b`, `/a/b/c`, as the `path_hierarchy` tokenizer of `dirname.tree` does. */
export const dirnameAncestors = (dirname: string): ReadonlyArray<string> => {
  if (dirname === "") return []
  if (dirname === "/") return ["/"]
  const parts = dirname.split("/")
  const ancestors: Array<string> = []
  for (let end = 1; end <= parts.length; end++) {
    const ancestor = parts.slice(0, end).join("/")
    if (ancestor !== "") ancestors.push(ancestor)
  }
  return ancestors
}
