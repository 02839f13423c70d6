/**
 * JSON nested deeper than this is refused before it is parsed: every recursive walk of a parsed value (decoding,
 * the NUL check, the search DSL) would otherwise overflow the stack on a body of a few hundred kilobytes of `[`.
 */
export const maxJsonDepth = 512

export const tooDeepMessage = `JSON nested deeper than ${maxJsonDepth} levels is refused`

/**
 * Whether the JSON text opens more than `limit` arrays or objects at once. One pass over the characters, with no
 * recursion, skipping strings (where brackets are text); malformed JSON is left to JSON.parse.
 */
export const jsonTooDeep = (text: string, limit = maxJsonDepth): boolean => {
  let depth = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === 0x5c)
        i++ // a backslash: the next character is escaped
      else if (c === 0x22) inString = false
    } else if (c === 0x22) inString = true
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > limit) return true
    } else if (c === 0x5d || c === 0x7d) depth--
  }
  return false
}
