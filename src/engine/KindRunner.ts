import { Cause, type Effect, Predicate, type Schema } from "effect"
import type { Task } from "../domain/task/Task.ts"

/** The engine's side of a running task. */
export interface TaskTools {
  readonly reportProgress: (fraction: number) => Effect.Effect<void>
  readonly saveCheckpoint: (encoded: unknown) => Effect.Effect<void>
}

/** A kind with its schemas applied: JSON in, JSON out, an error message on failure. */
export interface KindRunner {
  readonly name: string
  readonly concurrency: number | undefined
  readonly run: (task: Task, tools: TaskTools) => Effect.Effect<unknown, string>
}

/** What queueing a task of a kind needs: its names and the schema its payload is stored with. */
export interface SubmittableKind {
  readonly name: string
  /** The reference's class name; task names are `<runnerType>@<id>` and clients filter on them. */
  readonly runnerType: string
  readonly payload: Schema.Schema.AnyNoContext
}

const stringProperty = (value: object, name: string) =>
  Predicate.hasProperty(value, name) && typeof value[name] === "string" ? value[name] : undefined

/** The text an ERROR task keeps: `<tag or name>: <message>`, like the reference's exception strings. */
export const errorText = (error: unknown): string => {
  if (typeof error !== "object" || error === null) return String(error)
  const label = stringProperty(error, "_tag") ?? stringProperty(error, "name") ?? "Error"
  const message = stringProperty(error, "message")
  return message === undefined || message === "" ? label : `${label}: ${message}`
}

/** The message of a defect that ended a handler. */
export const defectText = (cause: Cause.Cause<unknown>) => errorText(Cause.squash(cause))
