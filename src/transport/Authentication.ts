import { HttpApiSchema } from "@effect/platform"
import type { SqlError } from "@effect/sql"
import { Context, type Effect, Schema } from "effect"
import type { BadRequest } from "../domain/RequestErrors.ts"
import type { CurrentUserShape } from "../domain/user/CurrentUser.ts"
import type { HttpRequestShape } from "./Http.ts"

/**
 * Who sends a request, checked the same way whichever transport it came by (the HTTP routes, RPC over HTTP and its
 * WebSocket): the Authenticator of the server's mode, and its refusals.
 */

/** Missing or wrong credentials; answered 401 with `WWW-Authenticate: Basic realm="datashare"`. */
export class Unauthorized extends Schema.TaggedError<Unauthorized>()(
  "Unauthorized",
  { message: Schema.String },
  HttpApiSchema.annotations({ status: 401 })
) {}

/** Too many failed password checks for a login or from an address: 429 with `Retry-After`, without checking. */
export class TooManyAttempts extends Schema.TaggedError<TooManyAttempts>()(
  "TooManyAttempts",
  { message: Schema.String, retryAfterSeconds: Schema.Number },
  HttpApiSchema.annotations({ status: 429 })
) {}

export interface Authentication {
  /** Undefined when the request carries no credentials (allowed only on public routes). */
  readonly user: CurrentUserShape | undefined
  /** Headers the response must carry (a new session cookie). */
  readonly headers: Readonly<Record<string, string>>
}

export interface AuthenticatorShape {
  readonly authenticate: (
    request: HttpRequestShape,
    isPublic: boolean
  ) => Effect.Effect<Authentication, Unauthorized | TooManyAttempts | BadRequest | SqlError.SqlError>
}

/** Checks credentials; one implementation per mode (LOCAL here, SERVER in ServerAuth.ts). */
export class Authenticator extends Context.Tag("quarry/Authenticator")<Authenticator, AuthenticatorShape>() {}
