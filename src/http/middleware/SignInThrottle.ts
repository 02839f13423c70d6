import type { SqlError } from "@effect/sql"
import { Context, Effect, Option, type Redacted } from "effect"
import type { SettingsShape } from "../../config/Settings.ts"
import type { StoredUser } from "../../domain/user/User.ts"
import { Users } from "../../domain/user/Users.ts"
import { TooManyAttempts } from "../../transport/Authentication.ts"
import { makeFailureThrottle } from "./FailureThrottle.ts"

export interface SignInThrottleShape {
  /**
   * The user when the password is right: a remembered one at once, others checked unless their login or the client's
   * address had too many failures in the window (then TooManyAttempts, without checking).
   */
  readonly checkPassword: (
    login: string,
    password: Redacted.Redacted<string>,
    address: string
  ) => Effect.Effect<Option.Option<StoredUser>, TooManyAttempts | SqlError.SqlError>
}

/** Password checks of HTTP Basic and of the sign-in form, throttled together per login and per address. */
export class SignInThrottle extends Context.Tag("quarry/SignInThrottle")<SignInThrottle, SignInThrottleShape>() {}

export const makeSignInThrottle = (settings: SettingsShape) =>
  Effect.gen(function* () {
    const users = yield* Users
    const windowMs = settings.authFailureWindowSeconds * 1000
    // An address may be a proxy or a newsroom's NAT, shared by many users: it gets more failures than one login.
    const loginThrottle = makeFailureThrottle(10, windowMs, 10_000)
    const addressThrottle = makeFailureThrottle(50, windowMs, 10_000)
    return SignInThrottle.of({
      checkPassword: (login, password, address) =>
        Effect.gen(function* () {
          const remembered = yield* users.rememberedUser(login, password)
          if (Option.isSome(remembered)) return remembered
          const wait = Math.max(loginThrottle.retryAfter(login) ?? 0, addressThrottle.retryAfter(address) ?? 0)
          if (wait > 0) return yield* new TooManyAttempts({ message: "too many failed sign-ins: try again later", retryAfterSeconds: wait })
          loginThrottle.begin(login)
          addressThrottle.begin(address)
          const user = yield* users.checkPassword(login, password)
          if (Option.isSome(user)) {
            loginThrottle.succeeded(login)
            addressThrottle.succeeded(address)
          }
          return user
        })
    })
  })
