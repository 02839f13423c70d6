import { Effect, Redacted, Schema } from "effect"
import { Settings } from "../../config/Settings.ts"
import { Users } from "../../domain/user/Users.ts"
import { allowMethods, empty, json, pathParam } from "../../transport/Http.ts"
import { Forbidden, NotFound } from "../../domain/RequestErrors.ts"
import { CurrentUser } from "../../domain/user/CurrentUser.ts"
import { publicRoute, route } from "../Router.ts"

const ApiKeyCreated = Schema.Struct({ apiKey: Schema.String.annotations({ description: "Base64 of a random 256-bit key, shown once" }) })
const HashedApiKey = Schema.Struct({ hashedKey: Schema.String.annotations({ description: "SHA-384 hex of the key" }) })

/** API keys exist in SERVER mode only, as in the reference, where LOCAL mode has no such routes. */
const serverModeOnly = Effect.gen(function* () {
  if ((yield* Settings).mode !== "SERVER") return yield* new NotFound({ message: "API keys exist only in SERVER mode" })
})

/** The user id of the path, when the caller may manage that user's key: their own, or anyone's for an admin. */
const keyOwner = Effect.gen(function* () {
  yield* serverModeOnly
  const userId = yield* pathParam("userId")
  const caller = yield* CurrentUser
  if (caller.user.id !== userId && !caller.isAdmin) return yield* new Forbidden({ message: "you may only manage your own API key" })
  return userId
})

const path = "/api/key/:userId"

export const apiKeyRoutes = [
  // Public because browsers send preflights without credentials.
  publicRoute("OPTIONS", path, Effect.as(serverModeOnly, allowMethods("OPTIONS, GET, PUT, DELETE")), {
    summary: "Methods allowed on a user's API key",
    tag: "api key"
  }),
  route(
    "PUT",
    path,
    Effect.gen(function* () {
      const key = yield* (yield* Users).createApiKey(yield* keyOwner)
      return json({ apiKey: Redacted.value(key) }, 201)
    }),
    {
      summary: "Creates an API key for the user, replacing the previous one; the key is shown only in this answer",
      tag: "api key",
      response: ApiKeyCreated,
      responseStatus: 201
    }
  ),
  route(
    "GET",
    path,
    Effect.gen(function* () {
      return json({ hashedKey: yield* (yield* Users).apiKeyHash(yield* keyOwner) })
    }),
    { summary: "The SHA-384 hex of the user's API key (404 when the user has none)", tag: "api key", response: HashedApiKey }
  ),
  route(
    "DELETE",
    path,
    Effect.gen(function* () {
      yield* (yield* Users).deleteApiKey(yield* keyOwner)
      return empty(204)
    }),
    { summary: "Deletes the user's API key", tag: "api key", responseStatus: 204 }
  )
]
