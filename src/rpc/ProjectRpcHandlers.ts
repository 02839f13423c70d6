import { Effect } from "effect"
import { Projects } from "../domain/project/Projects.ts"
import type { RpcCallers } from "./Caller.ts"
import { ProjectRpcs } from "./ProjectRpcs.ts"

/** The project RPCs over the Projects service, which applies the legacy API's access rules itself. */
export const projectRpcHandlers = (callers: RpcCallers) =>
  ProjectRpcs.toLayer(
    Effect.gen(function* () {
      const projects = yield* Projects
      return {
        listProjects: (_, { headers }) => Effect.flatMap(callers.caller(headers), ({ editor }) => projects.list(editor)),
        getProject: ({ id }, { headers }) => Effect.flatMap(callers.caller(headers), ({ editor }) => projects.get(id, editor)),
        createProject: (input, { headers }) =>
          Effect.flatMap(callers.caller(headers), ({ editor }) => projects.create(input, editor)).pipe(
            Effect.catchTag("DocumentIndexUnavailable", Effect.die)
          ),
        updateProject: ({ id, ...fields }, { headers }) =>
          Effect.flatMap(callers.caller(headers), ({ editor }) => projects.update(id, { ...fields, name: id }, editor)),
        deleteProject: ({ id }, { headers }) =>
          Effect.flatMap(callers.caller(headers), ({ editor }) => projects.remove(id, editor)).pipe(
            Effect.catchTag("DocumentIndexUnavailable", Effect.die)
          )
      }
    })
  )
