import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { Effect, Option } from "effect"
import { inTransaction } from "../../db/SqlFailure.ts"
import { Settings } from "../../config/Settings.ts"
import { DocumentIndex } from "../../search/DocumentIndex.ts"
import { maskAllows } from "../document/Content.ts"
import { isWithin } from "../PathGuard.ts"
import { type ProjectCaller, type ProjectEditor, requireGranted } from "./Access.ts"
import { isValidProjectId, type LegacyProject, type ProjectFields, type ProjectInput, projectFromName, toLegacyProject } from "./Project.ts"
import { DownloadNotAllowed, InvalidProject, NotYourProject, ProjectExists, ProjectForbidden, ProjectNotFound } from "./ProjectErrors.ts"
import { ProjectRepo } from "./ProjectRepo.ts"

/** Who changes projects: in SERVER mode only administrators may create, edit or delete them. */
const fieldLimits: ReadonlyArray<readonly [keyof ProjectFields, number]> = [
  ["label", 255],
  ["description", 4096],
  ["publisherName", 255],
  ["maintainerName", 255],
  ["logoUrl", 2048],
  ["sourceUrl", 2048]
]

const asObject = (input: ProjectInput) => (typeof input === "string" ? { name: input } : input)

/** The editable fields of a body, each checked against its column's length. */
const fieldsOf = (input: ProjectInput) =>
  Effect.gen(function* () {
    const body = asObject(input)
    const fields: ProjectFields = {
      label: body.label ?? null,
      description: body.description ?? null,
      publisherName: body.publisherName ?? null,
      maintainerName: body.maintainerName ?? null,
      logoUrl: body.logoUrl ?? null,
      sourceUrl: body.sourceUrl ?? null
    }
    for (const [name, limit] of fieldLimits) {
      if ((fields[name]?.length ?? 0) > limit) return yield* new InvalidProject({ reason: `\`${name}\` is at most ${limit} characters.` })
    }
    return fields
  })

/** A source path given as a file URI or a plain path, resolved. */
const resolvePath = (sourcePath: string) => {
  try {
    return path.resolve(sourcePath.startsWith("file:") ? fileURLToPath(sourcePath) : sourcePath)
  } catch {
    return undefined
  }
}

/** Projects of the legacy API, with the seed's ownership rule on deletion. */
export class Projects extends Effect.Service<Projects>()("quarry/Projects", {
  effect: Effect.gen(function* () {
    const settings = yield* Settings
    const repo = yield* ProjectRepo
    const index = yield* DocumentIndex

    /**
     * A granted project's row. In SERVER mode a project outside the caller's answers 403 whether or not it
     * exists; in LOCAL mode every stored project is granted, so an ungranted one is simply unknown.
     */
    const findGranted = (id: string, caller: ProjectCaller) =>
      Effect.gen(function* () {
        if (!caller.grantedProjects.includes(id)) {
          return yield* settings.mode === "SERVER"
            ? new ProjectForbidden({ project: id, reason: `no access to project ${id}` })
            : new ProjectNotFound({ id })
        }
        return yield* Effect.flatMap(
          repo.find(id),
          Option.match({ onNone: () => Effect.fail(new ProjectNotFound({ id })), onSome: Effect.succeed })
        )
      })

    const requireEditor = (id: string, editor: ProjectEditor) =>
      settings.mode === "SERVER" && !editor.isAdmin
        ? Effect.fail(new ProjectForbidden({ project: id, reason: "only administrators may change projects in SERVER mode" }))
        : Effect.void

    const get = Effect.fn("Projects.get")(function* (id: string, caller: ProjectCaller) {
      return toLegacyProject(yield* findGranted(id, caller))
    })

    /** The stored projects among the caller's. */
    const list = Effect.fn("Projects.list")(function* (caller: ProjectCaller) {
      return (yield* repo.listIn(caller.grantedProjects)).map(toLegacyProject)
    })

    /** Every granted project, stored or not (those without a row are built from their name), for users/me. */
    const granted = Effect.fn("Projects.granted")(function* (caller: ProjectCaller) {
      const stored = new Map((yield* repo.listIn(caller.grantedProjects)).map((row) => [row.id, toLegacyProject(row)] as const))
      const now = new Date()
      return caller.grantedProjects.map((id): LegacyProject => stored.get(id) ?? projectFromName(id, now))
    })

    /** The project's stored source folder; none for a project without a row. */
    const sourceFolder = Effect.fn("Projects.sourceFolder")(function* (id: string) {
      return Option.flatMap(yield* repo.find(id), (row) => Option.fromNullable(row.sourcePath))
    })

    /** One project as notes embed it: its row, or a project built from its name. */
    const describe = Effect.fn("Projects.describe")(function* (id: string) {
      return Option.match(yield* repo.find(id), { onNone: () => projectFromName(id, new Date()), onSome: toLegacyProject })
    })

    const create = Effect.fn("Projects.create")(function* (input: ProjectInput, editor: ProjectEditor) {
      const body = asObject(input)
      const name = body.name ?? ""
      if (name === "") return yield* new InvalidProject({ reason: "`name` field is required." })
      if (!isValidProjectId(name))
        return yield* new InvalidProject({ reason: "`name` is 1 to 255 characters, without '/', ',' or spaces." })
      yield* requireEditor(name, editor)
      const sourcePath = body.sourcePath === undefined || body.sourcePath === null ? undefined : resolvePath(body.sourcePath)
      if (sourcePath === undefined || !isWithin(path.resolve(settings.dataDir), sourcePath)) {
        return yield* new InvalidProject({ reason: `\`sourcePath\` is required and must not be outside ${settings.dataDir}.` })
      }
      const fields = yield* fieldsOf(input)
      return yield* inTransaction(
        Effect.gen(function* () {
          const row = yield* repo.insert(name, sourcePath, { ...fields, label: fields.label ?? name })
          if (Option.isNone(row)) return yield* new ProjectExists({ id: name })
          yield* index.createIndex(name)
          return toLegacyProject(row.value)
        })
      )
    })

    /** The body's name must be the project's id, as in the reference (404 otherwise). */
    const update = Effect.fn("Projects.update")(function* (id: string, input: ProjectInput, editor: ProjectEditor) {
      const name = asObject(input).name ?? id
      if (name !== id) return yield* new ProjectNotFound({ id })
      yield* findGranted(id, editor)
      yield* requireEditor(id, editor)
      const row = yield* repo.update(id, yield* fieldsOf(input))
      return yield* Option.match(row, {
        onNone: () => Effect.fail(new ProjectNotFound({ id })),
        onSome: (stored) => Effect.succeed(toLegacyProject(stored))
      })
    })

    /** Removes everything of the project (marks, notes, history links, queued files, row) and its index at once. */
    const remove = Effect.fn("Projects.remove")(function* (id: string, editor: ProjectEditor) {
      if (!editor.grantedProjects.includes(id)) return yield* new NotYourProject({ project: id })
      yield* requireEditor(id, editor)
      yield* inTransaction(Effect.zipRight(repo.removeRows(id), index.deleteIndex(id)))
    })

    /**
     * Whether the client may download the project's sources: only a stored project's mask can refuse. In SERVER
     * mode a project outside the caller's is refused outright.
     */
    const checkDownload = Effect.fn("Projects.checkDownload")(function* (id: string, address: string, caller: ProjectCaller) {
      if (settings.mode === "SERVER") yield* requireGranted(id, caller)
      const row = yield* repo.find(id)
      if (Option.isSome(row) && !maskAllows(row.value.allowFromMask, address)) return yield* new DownloadNotAllowed({ project: id })
    })

    return { get, list, granted, sourceFolder, describe, create, update, remove, checkDownload }
  })
}) {}
