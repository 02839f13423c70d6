/**
 * Record link templates: `{field}` placeholders over the record's own columns, `{metadata.a.b}` walking objects,
 * `{metadata[1]}` indexing lists, and a `:u` suffix URL-encoding the value. Unknown names or paths render empty.
 */

/** Percent-encoding that keeps `/`, like Python's `quote`. */
const urlEncode = (value: string) =>
  encodeURIComponent(value)
    .replace(/%2F/gi, "/")
    .replace(/[!'()*]/g, (character) => `%${character.charCodeAt(0).toString(16).toUpperCase()}`)

const walk = (root: unknown, path: string): unknown => {
  let current = root
  for (const [, key, index] of path.matchAll(/\.?([^.[\]]+)|\[(\d+)\]/g)) {
    if (index !== undefined) current = Array.isArray(current) ? current[Number(index)] : undefined
    else if (typeof current === "object" && current !== null && !Array.isArray(current))
      current = (current as Record<string, unknown>)[key!]
    else return undefined
    if (current === undefined) return undefined
  }
  return current
}

const printable = (value: unknown) =>
  value === undefined || value === null ? "" : typeof value === "object" ? JSON.stringify(value) : String(value)

export const renderLink = (template: string, fields: Readonly<Record<string, unknown>>) =>
  template.replace(/\{([^{}:]*)(?::([^{}]*))?\}/g, (_, expression: string, format: string | undefined) => {
    const name = /^[^.[]*/.exec(expression)![0]
    const value = name in fields ? walk(fields[name], expression.slice(name.length)) : undefined
    const text = printable(value)
    return format === "u" ? urlEncode(text) : text
  })

/** The link of a record: its own, else the task's template rendered, else null. */
export const recordLink = (own: string | null, template: string | null, fields: Readonly<Record<string, unknown>>) =>
  own !== null && own !== "" ? own : template !== null && template !== "" ? renderLink(template, fields) : null

/** The embeddable link: its own, else the task's embeddable template rendered, else the link. */
export const recordEmbeddableLink = (
  own: string | null,
  template: string | null,
  fields: Readonly<Record<string, unknown>>,
  link: string | null
) => (own !== null && own !== "" ? own : template !== null && template !== "" ? renderLink(template, fields) : link)
