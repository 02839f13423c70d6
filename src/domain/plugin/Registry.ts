import * as fs from "node:fs/promises"
import { fileURLToPath } from "node:url"
import { Effect, ParseResult, Schema } from "effect"
import { type DeliverableKind, kindOfType, type RegistryEntry, RegistryFile } from "./Deliverable.ts"
import { RegistryInvalid } from "./DeliverableErrors.ts"

/** The registry shipped with Quarry, used unless `deliverablesRegistry` names another file. */
export const shippedRegistryFile = fileURLToPath(new URL("./deliverables.json", import.meta.url))

/** The registry entries of one kind, by id. */
export type Registry = ReadonlyMap<string, RegistryEntry>

/** Reads and checks a registry file, then splits it into plugins and extensions. */
export const readRegistry = (file: string) =>
  Effect.gen(function* () {
    const text = yield* Effect.tryPromise({
      try: () => fs.readFile(file, "utf8"),
      catch: (error) => new RegistryInvalid({ file, reason: error instanceof Error ? error.message : String(error) })
    })
    const decoded = yield* Schema.decodeUnknown(Schema.parseJson(RegistryFile))(text).pipe(
      Effect.mapError((error) => new RegistryInvalid({ file, reason: ParseResult.TreeFormatter.formatErrorSync(error) }))
    )
    const byKind = (kind: DeliverableKind): Registry =>
      new Map(decoded.deliverableList.filter((entry) => kindOfType(entry.type) === kind).map((entry) => [entry.id, entry]))
    return { plugin: byKind("plugin"), extension: byKind("extension") } satisfies Record<DeliverableKind, Registry>
  })
