import { Rpc, RpcGroup } from "@effect/rpc"
import { Schema } from "effect"
import { ProjectForbidden } from "../domain/project/ProjectErrors.ts"
import { Task } from "../domain/task/Task.ts"
import { Category, NamedEntityView } from "../ner/NamedEntity.ts"
import { UnknownPipeline } from "../ner/Pipeline.ts"

/** A named entity found in a document: the legacy view with its id. */
export const DocumentNamedEntity = Schema.Struct({ id: Schema.String, ...NamedEntityView.fields })

export class NamedEntityNotFound extends Schema.TaggedError<NamedEntityNotFound>()("NamedEntityNotFound", {
  project: Schema.String,
  id: Schema.String
}) {
  override get message() {
    return `named entity ${this.id} not found in ${this.project}`
  }
}

/**
 * The named-entity API for internal tools, served at `/rpc`: run a pipeline over a project (a findNames task,
 * followed with the task RPCs) and read the entities found in a document.
 */
export class NamedEntityRpcs extends RpcGroup.make(
  /** Names of the pipelines this server runs. */
  Rpc.make("nerPipelines", { success: Schema.Array(Schema.String) }),
  /**
   * Starts a findNames task running the pipeline over every document of the project (the server's default
   * project when absent) not yet tagged with it; the project must be the caller's (administrators may name any).
   */
  Rpc.make("findNames", {
    payload: { pipeline: Schema.String, project: Schema.optional(Schema.String) },
    success: Task,
    error: Schema.Union(UnknownPipeline, ProjectForbidden)
  }),
  /**
   * The named entities of a document of one of the caller's projects, by mention then offset, `pageSize` (default
   * 500) read at a time; `routing` is the document's root when it is an embedded document. Hidden entities are left
   * out unless asked for.
   */
  Rpc.make("documentNamedEntities", {
    payload: {
      project: Schema.String,
      documentId: Schema.String,
      routing: Schema.optional(Schema.String),
      categories: Schema.optional(Schema.Array(Category)),
      includeHidden: Schema.optional(Schema.Boolean),
      pageSize: Schema.optional(Schema.Int.pipe(Schema.between(1, 1_000)))
    },
    success: DocumentNamedEntity,
    error: ProjectForbidden,
    stream: true
  }),
  /** A named entity of one of the caller's projects by id; with `routing`, only when its root document is that id. */
  Rpc.make("getNamedEntity", {
    payload: { project: Schema.String, id: Schema.String, routing: Schema.optional(Schema.String) },
    success: DocumentNamedEntity,
    error: Schema.Union(NamedEntityNotFound, ProjectForbidden)
  }),
  /** Hides every named entity of the project with that normalised mention; answers how many matched. */
  Rpc.make("hideNamedEntities", {
    payload: { project: Schema.String, mentionNorm: Schema.String },
    success: Schema.Number,
    error: ProjectForbidden
  })
) {}
