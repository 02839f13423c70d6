import { RpcMiddleware } from "@effect/rpc"
import { Effect, Layer, Schema } from "effect"
import { holdsNul, nulRefusal } from "../db/Nul.ts"

/** A payload the database could not store: a string holding a NUL character, at any depth. */
export class InvalidPayload extends Schema.TaggedError<InvalidPayload>()("InvalidPayload", { message: Schema.String }) {}

/**
 * Refuses, before any handler runs, a payload holding a NUL character, as the HTTP APIs answer 400: every procedure
 * then fails with a typed `InvalidPayload` rather than a statement failing on the way.
 */
export class RefuseNul extends RpcMiddleware.Tag<RefuseNul>()("quarry/rpc/RefuseNul", { failure: InvalidPayload }) {}

export const RefuseNulLive = Layer.succeed(
  RefuseNul,
  RefuseNul.of(({ payload, rpc }) =>
    holdsNul(payload) ? Effect.fail(new InvalidPayload({ message: `${rpc._tag}: ${nulRefusal}` })) : Effect.void
  )
)
