import * as fs from "node:fs/promises"
import * as path from "node:path"
import { Effect } from "effect"
import { Settings } from "../../config/Settings.ts"
import { describe } from "../../extract/ExtractErrors.ts"
import { nameFilter } from "../NameFilter.ts"
import { type DeliverableKind, fileExtension, installName, parseName, type RegistryEntry } from "./Deliverable.ts"
import { DeliverableFilesystemError, DeliverableNotFound, DeliverableRefused, InvalidDeliverableRequest } from "./DeliverableErrors.ts"
import { download } from "./Download.ts"
import { listInstalled, packagesOf } from "./Installed.ts"
import { packageRoot, placeReplacing, removeItems, withStaging } from "./Placement.ts"
import { readRegistry, type Registry, shippedRegistryFile } from "./Registry.ts"
import { detectFormat, readHead, unpack } from "./Unpack.ts"

/** What to install: from the registry, or a URL that is not in it (then id and version come from its file name). */
interface Wanted {
  readonly id: string
  readonly version: string | null
  readonly url: string
  readonly sha256?: string | undefined
}

/** Files in one plugin; plugins are a few scripts and styles, so this only stops pathological archives. */
const maxPluginEntries = 10_000

const safeId = /^[A-Za-z0-9][\w.-]*$/

const isHttpUrl = (text: string) => URL.canParse(text) && /^https?:$/.test(new URL(text).protocol)

const decoded = (text: string) => {
  try {
    return decodeURIComponent(text)
  } catch {
    return text
  }
}

/** The last path segment of a URL, decoded: the name of the file it serves. */
const urlFileName = (url: string) => decoded(new URL(url).pathname.replace(/\/+$/, "").split("/").pop() ?? "")

const fromRegistry = (entry: RegistryEntry): Wanted => ({ id: entry.id, version: entry.version, url: entry.url, sha256: entry.sha256 })

const wantedFromUrl = (registry: Registry, url: string) => {
  const listed = [...registry.values()].find((entry) => entry.url === url)
  if (listed !== undefined) return Effect.succeed(fromRegistry(listed))
  const { id, version } = parseName(urlFileName(url))
  return safeId.test(id)
    ? Effect.succeed<Wanted>({ id, version, url })
    : Effect.fail(new InvalidDeliverableRequest({ reason: `cannot tell a package name from the URL ${url}` }))
}

/**
 * What an install request names, the reference's way: a valid `url` first, else `id` looked up in the registry;
 * 400 when neither is usable, 404 when the id is not in the registry.
 */
const resolveRequest = (kind: DeliverableKind, registry: Registry, id: string | undefined, url: string | undefined) => {
  if (url !== undefined && url !== "" && isHttpUrl(url)) return wantedFromUrl(registry, url)
  if (id !== undefined && id !== "") {
    const entry = registry.get(id)
    return entry === undefined
      ? Effect.fail(new DeliverableNotFound({ reason: `no ${kind} ${JSON.stringify(id)} in the registry` }))
      : Effect.succeed(fromRegistry(entry))
  }
  return Effect.fail(
    new InvalidDeliverableRequest({
      reason:
        url === undefined || url === "" ? "id or url is required" : `url must be an http:// or https:// URL, not ${JSON.stringify(url)}`
    })
  )
}

/** An extension is installed as downloaded; when its name promises an archive, the bytes must be one. */
const verifyExtension = (url: string, file: string, extension: string) =>
  Effect.gen(function* () {
    const head = yield* readHead(file)
    if (head.length === 0) return yield* new DeliverableRefused({ url, reason: "the download is empty" })
    const expected =
      extension === ".jar" || extension === ".zip"
        ? "zip"
        : extension === ".tgz" || extension === ".tar.gz"
          ? "tar.gz"
          : extension === ".tar"
            ? "tar"
            : undefined
    if (expected !== undefined && detectFormat(head) !== expected) {
      return yield* new DeliverableRefused({ url, reason: `the download is not the ${extension} archive its name says` })
    }
  })

/**
 * Plugins and extensions: the registry, what is installed, and installing and removing packages. The renames of
 * installs and removals run one at a time, so that two requests for the same package cannot interleave them.
 */
export class Deliverables extends Effect.Service<Deliverables>()("quarry/Deliverables", {
  effect: Effect.gen(function* () {
    const settings = yield* Settings
    const registries = yield* readRegistry(settings.deliverablesRegistry ?? shippedRegistryFile)
    // The reference's services fall back to these folders when the settings name none.
    const dirs: Record<DeliverableKind, string> = {
      plugin: settings.pluginsDir ?? path.resolve("plugins"),
      extension: settings.extensionsDir ?? path.resolve("extensions")
    }
    const limits = { maxBytes: settings.deliverableMaxSize, timeoutSeconds: settings.deliverableDownloadTimeout }
    const oneAtATime = (yield* Effect.makeSemaphore(1)).withPermits(1)

    const list = Effect.fn("Deliverables.list")(function* (kind: DeliverableKind, filter: string | undefined) {
      return packagesOf(kind, registries[kind], yield* listInstalled(dirs[kind], kind), nameFilter(filter))
    })

    /** Replaces the installed versions of `id` with `prepared`; only this step excludes other installs and removals. */
    const place = (kind: DeliverableKind, id: string, name: string, prepared: string, staging: string) =>
      oneAtATime(
        Effect.gen(function* () {
          const older = (yield* listInstalled(dirs[kind], kind)).filter((item) => item.id === id)
          yield* placeReplacing(dirs[kind], name, prepared, older, staging)
        })
      )

    /**
     * Downloads into a staging folder of its own, verifies and unpacks there, then replaces the installed
     * versions. Downloads run side by side; the renames that follow them one at a time.
     */
    const installWanted = (kind: DeliverableKind, wanted: Wanted) =>
      withStaging(dirs[kind], ".installing-", (staging) =>
        Effect.gen(function* () {
          const downloaded = path.join(staging, "download")
          const saved = yield* download(wanted.url, downloaded, limits)
          if (wanted.sha256 !== undefined && saved.sha256 !== wanted.sha256) {
            return yield* new DeliverableRefused({
              url: wanted.url,
              reason: `its SHA-256 ${saved.sha256} is not the registry's ${wanted.sha256}`
            })
          }
          if (kind === "extension") {
            const extension = fileExtension(urlFileName(wanted.url))
            yield* verifyExtension(wanted.url, downloaded, extension)
            return yield* place(kind, wanted.id, installName(wanted.id, wanted.version, extension), downloaded, staging)
          }
          const content = path.join(staging, "content")
          yield* Effect.tryPromise({
            try: () => fs.mkdir(content),
            catch: (error) => new DeliverableFilesystemError({ action: `create ${content}`, reason: describe(error) })
          })
          yield* unpack(wanted.url, downloaded, content, { maxBytes: limits.maxBytes, maxEntries: maxPluginEntries })
          const { empty, root } = yield* packageRoot(content)
          if (empty) return yield* new DeliverableRefused({ url: wanted.url, reason: "the archive is empty" })
          yield* place(kind, wanted.id, installName(wanted.id, wanted.version), root, staging)
        })
      )

    const install = Effect.fn("Deliverables.install")(function* (kind: DeliverableKind, id: string | undefined, url: string | undefined) {
      const wanted = yield* resolveRequest(kind, registries[kind], id, url)
      yield* Effect.logInfo(`installing ${kind} ${wanted.id} ${wanted.version ?? ""} from ${wanted.url}`)
      yield* installWanted(kind, wanted)
    })

    /** Removes every installed version of a package, named by id or by URL; nothing installed is not an error. */
    const uninstall = Effect.fn("Deliverables.uninstall")(function* (kind: DeliverableKind, idOrUrl: string | undefined) {
      if (idOrUrl === undefined || idOrUrl === "") return yield* new InvalidDeliverableRequest({ reason: "id is required" })
      const id = isHttpUrl(idOrUrl) ? (yield* wantedFromUrl(registries[kind], idOrUrl)).id : idOrUrl
      yield* oneAtATime(
        Effect.gen(function* () {
          const installed = (yield* listInstalled(dirs[kind], kind)).filter((item) => item.id === id)
          if (installed.length > 0) yield* Effect.logInfo(`removing ${kind} ${installed.map((item) => item.fileName).join(", ")}`)
          yield* removeItems(dirs[kind], installed)
        })
      )
    })

    return { list, install, uninstall }
  })
}) {}
