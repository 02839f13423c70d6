import { Schema } from "effect"

/**
 * Plugins (front-end scripts unpacked into `pluginsDir`) and extensions (server archives placed in
 * `extensionsDir`) are both deliverables: listed by a registry, downloaded, installed and removed the same way.
 */
export type DeliverableKind = "plugin" | "extension"

export const DeliverableType = Schema.Literal("NLP", "WEB", "PLUGIN", "UNKNOWN")
export type DeliverableType = typeof DeliverableType.Type

/** One entry of the registry, as the reference's plugins.json and extensions.json write it. */
export const RegistryEntry = Schema.Struct({
  id: Schema.String.pipe(Schema.pattern(/^[A-Za-z0-9][\w.-]*$/)),
  name: Schema.String,
  // Ids and versions name the installed directory or file, so they cannot hold a path separator.
  version: Schema.NullOr(Schema.String.pipe(Schema.pattern(/^[\w.+-]+$/))),
  description: Schema.NullOr(Schema.String),
  url: Schema.String.pipe(Schema.pattern(/^https?:\/\/[^/]/)),
  homepage: Schema.NullOr(Schema.String),
  type: DeliverableType,
  /** When given, a download whose SHA-256 (lowercase hex) differs is refused. */
  sha256: Schema.optionalWith(Schema.String.pipe(Schema.pattern(/^[0-9a-f]{64}$/)), { exact: true })
}).annotations({ identifier: "Deliverable" })
export type RegistryEntry = typeof RegistryEntry.Type

/** The registry file: `{"deliverableList": [...]}`; PLUGIN entries are plugins, every other type an extension. */
export const RegistryFile = Schema.Struct({ deliverableList: Schema.Array(RegistryEntry) })

export const kindOfType = (type: DeliverableType): DeliverableKind => (type === "PLUGIN" ? "plugin" : "extension")

/** What the registry says about a package, as listed under `deliverableFromRegistry`. */
export const RegistryView = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  version: Schema.NullOr(Schema.String),
  description: Schema.NullOr(Schema.String),
  url: Schema.String,
  homepage: Schema.NullOr(Schema.String),
  type: DeliverableType
})

/**
 * An item of `GET /api/plugins` and `GET /api/extensions`. `version` is the installed
 * version when installed, else the registry's; `installedVersion` says which version is on disk (null when none),
 * so that a newer registry version shows as an available upgrade.
 */
export const DeliverablePackage = Schema.Struct({
  deliverableFromRegistry: Schema.NullOr(RegistryView),
  installed: Schema.Boolean,
  id: Schema.String,
  name: Schema.String,
  description: Schema.NullOr(Schema.String),
  type: DeliverableType,
  version: Schema.NullOr(Schema.String),
  installedVersion: Schema.NullOr(Schema.String)
}).annotations({ identifier: "DeliverablePackage" })
export type DeliverablePackage = typeof DeliverablePackage.Type

/** An installed plugin directory or extension file, named `<id>-<version>` (plus the file's extension). */
export interface InstalledItem {
  /** The directory or file name inside the plugins or extensions folder. */
  readonly fileName: string
  readonly id: string
  readonly version: string | null
}

const archiveSuffix = /(\.tar\.gz|\.tgz|\.tar|\.zip|\.jar)$/i
// Release jars of the reference's extensions carry this suffix after the version.
const jarSuffix = /-jar-with-dependencies$/
const endsWithVersion = /^(.+?)-v?(\d+(?:\.\d+)*)$/

/** The extension of an archive name (`.tar.gz`, `.jar`…), or "" when it has none Quarry knows. */
export const archiveExtension = (fileName: string) => archiveSuffix.exec(fileName)?.[1]?.toLowerCase() ?? ""

// Any other short extension of an extension file (`.bin`, `.whl`…).
const fileSuffix = /\.[A-Za-z][A-Za-z0-9]{0,7}$/

/** The extension an installed extension file keeps: a known archive's, else a short one, else none. */
export const fileExtension = (fileName: string) => archiveExtension(fileName) || (fileSuffix.exec(fileName)?.[0] ?? "")

/**
 * The id and version a file or directory name carries: `site-alert-1.3.4.tgz` is site-alert 1.3.4. Only file
 * names lose a short extension: a directory `plugin-1.2` has version 1.2.
 */
export const parseName = (fileName: string, isFile = true): { readonly id: string; readonly version: string | null } => {
  const withoutExtension = isFile ? fileName.slice(0, fileName.length - fileExtension(fileName).length) : fileName
  const base = withoutExtension.replace(jarSuffix, "")
  const match = endsWithVersion.exec(base)
  return match === null ? { id: base, version: null } : { id: match[1]!, version: match[2]! }
}

/** The name Quarry installs a package under: `<id>-<version>` without a leading `v`, or `<id>`. */
export const installName = (id: string, version: string | null, extension = "") =>
  `${version === null || version === "" ? id : `${id}-${version.replace(/^v(?=\d)/, "")}`}${extension}`

/** Orders versions by their numeric parts (1.10 after 1.9); null, an unknown version, comes first. */
export const compareVersions = (a: string | null, b: string | null): number => {
  if (a === b) return 0
  if (a === null) return -1
  if (b === null) return 1
  const left = a.split(/[.-]/)
  const right = b.split(/[.-]/)
  for (let i = 0; i < Math.max(left.length, right.length); i++) {
    const x = left[i] ?? "0"
    const y = right[i] ?? "0"
    const difference = /^\d+$/.test(x) && /^\d+$/.test(y) ? Number(x) - Number(y) : x.localeCompare(y)
    if (difference !== 0) return difference
  }
  return 0
}
