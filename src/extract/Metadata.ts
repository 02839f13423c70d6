/**
 * Metadata in the reference's shape: Tika names turned into `tika_metadata_<lower-cased, non-alphanumerics → _>`
 * keys, and an `_iso8601` twin for every date so the index can map it as a date whatever the source's format.
 */

export const tikaKey = (name: string): string => `tika_metadata_${name.toLowerCase().replace(/[^a-z0-9]/g, "_")}`

const dateNames = new Set([
  "dcterms:created",
  "dcterms:modified",
  "meta:creation-date",
  "meta:save-date",
  "creation-date",
  "last-modified",
  "dc:date",
  "date"
])

/** ISO 8601 in Tika's form (seconds, `Z`), or undefined for a value that is no date. */
export const isoDate = (value: Date | string | undefined): string | undefined => {
  if (value === undefined || value === "") return undefined
  const date = typeof value === "string" ? new Date(value) : value
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString().replace(/\.000Z$/, "Z")
}

export const normaliseMetadata = (raw: Readonly<Record<string, string>>): Record<string, string> => {
  const metadata: Record<string, string> = {}
  for (const [name, value] of Object.entries(raw)) {
    const key = tikaKey(name)
    metadata[key] = value
    if (dateNames.has(name.toLowerCase())) {
      const iso = isoDate(value)
      if (iso !== undefined) metadata[`${key}_iso8601`] = iso
    }
  }
  return metadata
}

export interface DocumentProperties {
  readonly title?: string | undefined
  readonly author?: string | undefined
  readonly lastAuthor?: string | undefined
  readonly subject?: string | undefined
  readonly keywords?: string | undefined
  readonly created?: Date | string | undefined
  readonly modified?: Date | string | undefined
  readonly pages?: number | undefined
}

/**
 * The names under which Tika reports a document's properties. Both the Dublin Core names and the older
 * ones (`Author`, `title`) are written because the reference's index searches both by default.
 */
export const documentMetadata = (properties: DocumentProperties): Record<string, string> => {
  const entries: Array<[string, string | undefined]> = [
    ["dc:title", properties.title],
    ["title", properties.title],
    ["dc:creator", properties.author],
    ["Author", properties.author],
    ["meta:author", properties.author],
    ["meta:last-author", properties.lastAuthor],
    ["dc:subject", properties.subject],
    ["subject", properties.subject],
    ["meta:keyword", properties.keywords],
    ["dcterms:created", isoDate(properties.created)],
    ["dcterms:modified", isoDate(properties.modified)],
    ["xmpTPg:NPages", properties.pages === undefined ? undefined : String(properties.pages)]
  ]
  const metadata: Record<string, string> = {}
  for (const [name, value] of entries) {
    const trimmed = value?.trim()
    if (trimmed !== undefined && trimmed !== "") metadata[name] = trimmed
  }
  return metadata
}
