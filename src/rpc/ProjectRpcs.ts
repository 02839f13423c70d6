import { Rpc, RpcGroup } from "@effect/rpc"
import { Schema } from "effect"
import { LegacyProject, ProjectFields } from "../domain/project/Project.ts"
import { InvalidProject, NotYourProject, ProjectExists, ProjectForbidden, ProjectNotFound } from "../domain/project/ProjectErrors.ts"

/**
 * The project API for internal tools, served at `/rpc`, with the legacy API's rules:
 * callers see their granted projects; in SERVER mode only administrators create, edit or delete projects.
 */
export class ProjectRpcs extends RpcGroup.make(
  /** The stored projects among the caller's. */
  Rpc.make("listProjects", { success: Schema.Array(LegacyProject) }),
  Rpc.make("getProject", {
    payload: { id: Schema.String },
    success: LegacyProject,
    error: Schema.Union(ProjectNotFound, ProjectForbidden)
  }),
  /** Creates a project and its index; `sourcePath` must lie inside the server's data folder. */
  Rpc.make("createProject", {
    payload: { name: Schema.String, sourcePath: Schema.String, ...ProjectFields },
    success: LegacyProject,
    error: Schema.Union(InvalidProject, ProjectExists, ProjectForbidden)
  }),
  /** Replaces the editable fields of a stored project of the caller's. */
  Rpc.make("updateProject", {
    payload: { id: Schema.String, ...ProjectFields },
    success: LegacyProject,
    error: Schema.Union(InvalidProject, ProjectNotFound, ProjectForbidden)
  }),
  /** Deletes one of the caller's projects with everything attached to it and its index. */
  Rpc.make("deleteProject", { payload: { id: Schema.String }, error: Schema.Union(NotYourProject, ProjectForbidden) })
) {}
