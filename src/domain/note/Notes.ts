import { Effect } from "effect"
import { type ProjectCaller, type ProjectEditor, requireGranted } from "../project/Access.ts"
import { Projects } from "../project/Projects.ts"
import { ProjectForbidden } from "../project/ProjectErrors.ts"
import { appliesTo, InvalidNote, type LegacyNote, maxNoteLength, type NoteInput, NoteNotFound, normalisePath } from "./Note.ts"
import { NoteRepo, type NoteRow } from "./NoteRepo.ts"

/**
 * Notes attached to document paths of a project. The reference has no endpoint to
 * write them; here administrators write them through PUT and DELETE on the same paths.
 */
export class Notes extends Effect.Service<Notes>()("quarry/Notes", {
  effect: Effect.gen(function* () {
    const repo = yield* NoteRepo
    const projects = yield* Projects

    const withProject = (project: string, rows: ReadonlyArray<NoteRow>) =>
      Effect.gen(function* () {
        if (rows.length === 0) return []
        const legacyProject = yield* projects.describe(project)
        return rows.map((row): LegacyNote => ({ project: legacyProject, note: row.note, path: row.path, variant: row.variant }))
      })

    const list = Effect.fn("Notes.list")(function* (project: string, caller: ProjectCaller) {
      yield* requireGranted(project, caller)
      return yield* withProject(project, yield* repo.list(project))
    })

    /** The notes of the document path's folder and of every folder above it, and the note of the path itself. */
    const forPath = Effect.fn("Notes.forPath")(function* (project: string, path: string, caller: ProjectCaller) {
      yield* requireGranted(project, caller)
      const documentPath = normalisePath(path)
      const rows = (yield* repo.list(project)).filter((row) => appliesTo(row.path, documentPath))
      return yield* withProject(project, rows)
    })

    const requireAdmin = (project: string, editor: ProjectEditor) =>
      editor.isAdmin ? Effect.void : Effect.fail(new ProjectForbidden({ project, reason: "only administrators may write notes" }))

    /** Writes the note of a path; true when it is new. */
    const put = Effect.fn("Notes.put")(function* (project: string, path: string, input: NoteInput, editor: ProjectEditor) {
      yield* requireGranted(project, editor)
      yield* requireAdmin(project, editor)
      if (input.note.length === 0 || input.note.length > maxNoteLength) {
        return yield* new InvalidNote({ reason: `a note is 1 to ${maxNoteLength} characters` })
      }
      const notePath = normalisePath(path)
      if (notePath.length > 4096) return yield* new InvalidNote({ reason: "a note path is at most 4096 characters" })
      return yield* repo.upsert(project, { path: notePath, note: input.note, variant: input.variant ?? "info" })
    })

    const remove = Effect.fn("Notes.remove")(function* (project: string, path: string, editor: ProjectEditor) {
      yield* requireGranted(project, editor)
      yield* requireAdmin(project, editor)
      const notePath = normalisePath(path)
      if (!(yield* repo.remove(project, notePath))) return yield* new NoteNotFound({ project, path: notePath })
    })

    return { list, forPath, put, remove }
  })
}) {}
