import { Effect, Layer, Option, ParseResult, Schema, type Scope } from "effect"
import type { Task, TaskId } from "../domain/task/Task.ts"
import { Engine } from "./Engine.ts"
import { errorText, type SubmittableKind, type TaskTools } from "./KindRunner.ts"

/** What a handler receives besides its payload. */
export interface JobContext<C> {
  readonly taskId: TaskId
  readonly userId: string
  /** 1 on the first run; more after a restart or a lost lease. */
  readonly attempt: number
  /** Reports a fraction between 0 and 1; writes are batched and throttled by the engine. */
  readonly reportProgress: (fraction: number) => Effect.Effect<void>
  readonly checkpoint: {
    /** What an earlier run saved: resume from there instead of starting over. */
    readonly saved: Option.Option<C>
    /** Saves where the work stands; inside a handler's transaction it commits with the handler's own writes. */
    readonly save: (value: C) => Effect.Effect<void>
  }
}

type AnySchema = Schema.Schema.AnyNoContext
/** Errors are only turned into text, never decoded, so any schema fits, Schema.Never included. */
type AnyErrorSchema = Schema.Schema.All

export interface JobKind<P extends AnySchema, S extends AnySchema, E extends AnyErrorSchema, C extends AnySchema> extends SubmittableKind {
  readonly payload: P
  readonly success: S
  readonly error: E
  readonly checkpoint: C
  /** Tasks of this kind running at once in one process; the engine's parallelism when undefined. */
  readonly concurrency: number | undefined
  /** Registers the handler with the Engine for the lifetime of the layer. */
  readonly toLayer: <R>(
    handler: (
      payload: Schema.Schema.Type<P>,
      context: JobContext<Schema.Schema.Type<C>>
    ) => Effect.Effect<Schema.Schema.Type<S>, Schema.Schema.Type<E>, R>
  ) => Layer.Layer<never, never, Engine | Exclude<R, Scope.Scope>>
}

const parseText = (error: ParseResult.ParseError) => ParseResult.TreeFormatter.formatErrorSync(error)

export const make = <
  P extends AnySchema,
  S extends AnySchema,
  E extends AnyErrorSchema,
  C extends AnySchema = typeof Schema.Unknown
>(options: {
  readonly name: string
  readonly runnerType?: string
  readonly payload: P
  readonly success: S
  readonly error: E
  readonly checkpoint?: C
  readonly concurrency?: number
}): JobKind<P, S, E, C> => {
  // C defaults to Schema.Unknown exactly when no checkpoint schema is given.
  const checkpoint = (options.checkpoint ?? Schema.Unknown) as C
  const decodePayload = Schema.decodeUnknown(options.payload)
  const decodeCheckpoint = Schema.decodeUnknownOption(checkpoint)
  const encodeCheckpoint = Schema.encode(checkpoint)
  const encodeSuccess = Schema.encode(options.success)

  const toLayer = <R>(
    handler: (
      payload: Schema.Schema.Type<P>,
      context: JobContext<Schema.Schema.Type<C>>
    ) => Effect.Effect<Schema.Schema.Type<S>, Schema.Schema.Type<E>, R>
  ) =>
    Layer.scopedDiscard(
      Effect.gen(function* () {
        const engine = yield* Engine
        const context = yield* Effect.context<Exclude<R, Scope.Scope>>()
        const run = (task: Task, tools: TaskTools) =>
          Effect.gen(function* () {
            const payload = yield* decodePayload(task.payload).pipe(Effect.mapError((error) => `invalid payload: ${parseText(error)}`))
            const result = yield* handler(payload, {
              taskId: task.id,
              userId: task.userId,
              attempt: task.attempts,
              reportProgress: tools.reportProgress,
              checkpoint: {
                saved: task.checkpoint === null ? Option.none() : decodeCheckpoint(task.checkpoint),
                save: (value) => encodeCheckpoint(value).pipe(Effect.orDie, Effect.flatMap(tools.saveCheckpoint))
              }
            }).pipe(Effect.scoped, Effect.mapError(errorText))
            return yield* encodeSuccess(result).pipe(Effect.orDie)
          }).pipe(Effect.provide(context))
        yield* engine.register({ name: options.name, concurrency: options.concurrency, run })
      })
    )

  return {
    name: options.name,
    runnerType: options.runnerType ?? `quarry.tasks.${options.name}`,
    payload: options.payload,
    success: options.success,
    error: options.error,
    checkpoint,
    concurrency: options.concurrency,
    toLayer
  }
}
