import { Effect, Schema } from "effect"
import { LegacyNote, maxNoteLength, NoteInput } from "../../domain/note/Note.ts"
import { Notes } from "../../domain/note/Notes.ts"
import { empty, json, jsonBody, pathParam } from "../../transport/Http.ts"
import { route, withBodyLimit } from "../Router.ts"
import { projectCaller } from "../../domain/project/Access.ts"

const tag = "notes"
const notes = Schema.Array(LegacyNote)
const access = "403 when the project is not one of the caller's"
const adminOnly = "administrators only (the LOCAL user is one; in SERVER mode users with the admin role), else 403"

export const noteRoutes = [
  route(
    "GET",
    "/api/:project/notes",
    Effect.gen(function* () {
      return json(yield* (yield* Notes).list(yield* pathParam("project"), yield* projectCaller))
    }),
    { summary: `The notes of a project; ${access}`, tag, response: notes }
  ),
  route(
    "GET",
    "/api/:project/notes/:path:",
    Effect.gen(function* () {
      return json(yield* (yield* Notes).forPath(yield* pathParam("project"), yield* pathParam("path"), yield* projectCaller))
    }),
    {
      summary: `The notes that apply to a document path: notes of that path and of the folders above it (not of /a/bc for /a/b); ${access}`,
      tag,
      response: notes
    }
  ),
  // A note of maxNoteLength characters must reach the length check (400): in JSON text a character takes up to 6 bytes (\uXXXX).
  withBodyLimit(6 * maxNoteLength + 1024)(
    route(
      "PUT",
      "/api/:project/notes/:path:",
      Effect.gen(function* () {
        const input = yield* jsonBody(NoteInput)
        const created = yield* (yield* Notes).put(yield* pathParam("project"), yield* pathParam("path"), input, yield* projectCaller)
        return empty(created ? 201 : 200)
      }),
      {
        summary:
          "Writes the note of a path (a folder's note applies to every document below it): 201 when new, 200 when replaced; " +
          `400 for an empty or too long note or an unknown variant; ${adminOnly}; ${access}`,
        tag,
        requestBody: NoteInput
      }
    )
  ),
  route(
    "DELETE",
    "/api/:project/notes/:path:",
    Effect.gen(function* () {
      yield* (yield* Notes).remove(yield* pathParam("project"), yield* pathParam("path"), yield* projectCaller)
      return empty(204)
    }),
    { summary: `Deletes the note of a path: 204; 404 when there is none; ${adminOnly}; ${access}`, tag, responseStatus: 204 }
  )
]
