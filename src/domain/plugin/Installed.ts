import * as fs from "node:fs/promises"
import { Effect } from "effect"
import { describe } from "../../extract/ExtractErrors.ts"
import {
  compareVersions,
  type DeliverableKind,
  type DeliverablePackage,
  type InstalledItem,
  parseName,
  type RegistryEntry
} from "./Deliverable.ts"
import { DeliverableFilesystemError } from "./DeliverableErrors.ts"
import type { Registry } from "./Registry.ts"

/** Staging folders of installs and removals in progress start with a dot, like any hidden file, and are skipped. */
export const isHidden = (name: string) => name.startsWith(".")

/**
 * What is installed in a plugins folder (its directories) or an extensions folder (its files), whatever
 * installed it: Quarry, the reference, or an operator copying files. A missing folder holds nothing.
 */
export const listInstalled = (dir: string, kind: DeliverableKind) =>
  Effect.tryPromise({
    try: () => fs.readdir(dir, { withFileTypes: true }),
    catch: (error) => error as NodeJS.ErrnoException
  }).pipe(
    Effect.catchAll((error) =>
      error.code === "ENOENT"
        ? Effect.succeed([])
        : Effect.fail(new DeliverableFilesystemError({ action: `list ${dir}`, reason: describe(error) }))
    ),
    Effect.map((entries): ReadonlyArray<InstalledItem> =>
      entries
        .filter((entry) => !isHidden(entry.name) && (kind === "plugin" ? entry.isDirectory() : entry.isFile()))
        .map((entry) => ({ fileName: entry.name, ...parseName(entry.name, kind === "extension") }))
    )
  )

const registryView = (entry: RegistryEntry) => ({
  id: entry.id,
  name: entry.name,
  version: entry.version,
  description: entry.description,
  url: entry.url,
  homepage: entry.homepage,
  type: entry.type
})

/**
 * One package: the registry's description of it (name, type) with the installed copy's version. A package
 * absent from the registry is named after its id, with the kind's default type.
 */
const packageView = (
  kind: DeliverableKind,
  id: string,
  entry: RegistryEntry | undefined,
  installed: InstalledItem | undefined
): DeliverablePackage => ({
  deliverableFromRegistry: entry === undefined ? null : registryView(entry),
  installed: installed !== undefined,
  id,
  name: entry?.name ?? id,
  description: entry?.description ?? null,
  type: entry?.type ?? (kind === "plugin" ? "PLUGIN" : "UNKNOWN"),
  version: installed !== undefined ? installed.version : (entry?.version ?? null),
  installedVersion: installed?.version ?? null
})

/**
 * The listing of `GET /api/plugins|extensions`: registry entries whose id, name or description match the filter
 * (`nameFilter`),
 * and installed items whose file name matches it, one item per id (the newest installed version), sorted by id.
 */
export const packagesOf = (
  kind: DeliverableKind,
  registry: Registry,
  installed: ReadonlyArray<InstalledItem>,
  matches: (text: string) => boolean
): ReadonlyArray<DeliverablePackage> => {
  const newest = new Map<string, InstalledItem>()
  for (const item of installed) {
    const current = newest.get(item.id)
    if (current === undefined || compareVersions(item.version, current.version) > 0) newest.set(item.id, item)
  }
  const ids = new Set<string>()
  for (const entry of registry.values()) {
    if ([entry.id, entry.name, entry.description ?? ""].some((text) => matches(text))) ids.add(entry.id)
  }
  for (const item of installed) if (matches(item.fileName)) ids.add(item.id)
  return [...ids].sort().map((id) => packageView(kind, id, registry.get(id), newest.get(id)))
}
