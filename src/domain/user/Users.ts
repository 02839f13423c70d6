import { createHash, createHmac, randomBytes } from "node:crypto"
import { SqlClient } from "@effect/sql"
import { Effect, Option, Redacted } from "effect"
import { hashPassword, verifyPassword } from "./Password.ts"
import { adminRole, applicationName, type StoredUser } from "./User.ts"
import { ApiKeyNotFound, InvalidUser, UserNotFound } from "./UserErrors.ts"
import { UserRepo, type UserRow } from "./UserRepo.ts"

/** A user to create or update (`quarry user add`): the stored user becomes exactly this. */
export interface UserInput {
  readonly login: string
  readonly password: Redacted.Redacted<string>
  readonly name?: string | undefined
  readonly email?: string | undefined
  readonly projects?: ReadonlyArray<string> | undefined
  readonly admin?: boolean | undefined
}

/** SHA-384 hex of an API key as handed out: the only form of the key that is stored. */
export const hashApiKey = (key: string) => createHash("sha384").update(key).digest("hex")

const withoutHash = (row: UserRow): StoredUser => ({
  login: row.login,
  name: row.name,
  email: row.email,
  provider: row.provider,
  details: row.details,
  roles: row.roles
})

const validate = (input: UserInput) => {
  // Basic credentials split at the first ':', so a login containing one could never sign in.
  if (!/^[^\s:]{1,96}$/.test(input.login)) return "a login is 1 to 96 characters, without spaces or ':'"
  if (Redacted.value(input.password).length === 0) return "the password must not be empty"
  if ((input.name?.length ?? 0) > 255) return "a name is at most 255 characters"
  if ((input.projects ?? []).some((project) => project.length === 0 || project.length > 255)) return "a project id is 1 to 255 characters"
  return undefined
}

/** How long a right password is remembered, and for how many login/password pairs at most. */
const rememberedMs = 60_000
const maxRemembered = 1_000

/**
 * Password checks run at once: scrypt runs on libuv's four threads, which file reads share, so a burst of sign-ins
 * must not take all of them.
 */
const concurrentChecks = 2

/** Users of SERVER mode: passwords (scrypt), granted projects, roles, sessions and API keys. */
export class Users extends Effect.Service<Users>()("quarry/Users", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const repo = yield* UserRepo

    const add = Effect.fn("Users.add")(function* (input: UserInput) {
      const reason = validate(input)
      if (reason !== undefined) return yield* new InvalidUser({ reason })
      const user: StoredUser = {
        login: input.login,
        name: input.name ?? null,
        email: input.email ?? null,
        provider: "local",
        // Where the reference keeps a user's projects, so GET /api/users/me shows them unchanged.
        details: { uid: input.login, groups_by_applications: { [applicationName]: [...new Set(input.projects ?? [])] } },
        roles: input.admin === true ? [adminRole] : []
      }
      const created = yield* repo.upsert({ ...user, passwordHash: yield* hashPassword(input.password) })
      return { user, created }
    })

    const get = Effect.fn("Users.get")(function* (login: string) {
      const row = yield* repo.findByLogin(login)
      if (Option.isNone(row)) return yield* new UserNotFound({ login })
      return withoutHash(row.value)
    })

    const list = Effect.fn("Users.list")(function* () {
      return (yield* repo.list()).map(withoutHash)
    })

    const remove = Effect.fn("Users.remove")(function* (login: string) {
      const removed = yield* sql.withTransaction(Effect.zipRight(repo.deleteApiKey(login), repo.remove(login)))
      if (!removed) return yield* new UserNotFound({ login })
    })

    const checks = yield* Effect.makeSemaphore(concurrentChecks)
    // Right passwords by login and HMAC of the password (under a key of this process, so that the map holds nothing
    // that could be tested offline), with the stored hash they matched: a changed password no longer matches.
    const remembered = new Map<string, { readonly hash: string; readonly until: number }>()
    const secret = randomBytes(32)
    const rememberedKey = (login: string, password: Redacted.Redacted<string>) =>
      `${login}:${createHmac("sha256", secret).update(Redacted.value(password)).digest("base64")}`

    /** The user when the password is right; none otherwise, taking the same time whether the login exists or not. */
    const checkPassword = Effect.fn("Users.checkPassword")(function* (login: string, password: Redacted.Redacted<string>) {
      const row = yield* repo.findByLogin(login)
      const hash = Option.match(row, { onNone: () => null, onSome: (r) => r.passwordHash })
      const matches = yield* checks.withPermits(1)(verifyPassword(password, hash))
      if (!matches || hash === null) return Option.none()
      if (remembered.size >= maxRemembered) remembered.delete(remembered.keys().next().value!)
      remembered.set(rememberedKey(login, password), { hash, until: Date.now() + rememberedMs })
      return Option.map(row, withoutHash)
    })

    /**
     * The user when this password was right less than a minute ago and the stored password is still the same; none
     * otherwise, without scrypt. Clients that send Basic credentials with every request pay for one check a minute.
     */
    const rememberedUser = Effect.fn("Users.rememberedUser")(function* (login: string, password: Redacted.Redacted<string>) {
      const key = rememberedKey(login, password)
      const entry = remembered.get(key)
      if (entry === undefined) return Option.none<StoredUser>()
      const row = entry.until > Date.now() ? yield* repo.findByLogin(login) : Option.none()
      if (Option.isSome(row) && row.value.passwordHash === entry.hash) return Option.some(withoutHash(row.value))
      remembered.delete(key)
      return Option.none<StoredUser>()
    })

    const openSession = Effect.fn("Users.openSession")(function* (login: string, ttlSeconds: number) {
      const sessionId = randomBytes(16).toString("hex")
      yield* repo.createSession(sessionId, login, ttlSeconds)
      return sessionId
    })

    const sessionUser = Effect.fn("Users.sessionUser")(function* (sessionId: string) {
      return Option.map(yield* repo.findSessionUser(sessionId), withoutHash)
    })

    const closeSession = Effect.fn("Users.closeSession")(function* (sessionId: string) {
      yield* repo.deleteSession(sessionId)
    })

    /** A new random 256-bit key in Base64, returned once; it replaces the user's previous key. */
    const createApiKey = Effect.fn("Users.createApiKey")(function* (login: string) {
      const key = randomBytes(32).toString("base64")
      yield* sql.withTransaction(
        Effect.gen(function* () {
          if (Option.isNone(yield* repo.findByLogin(login))) return yield* new UserNotFound({ login })
          yield* repo.upsertApiKey(login, hashApiKey(key))
        })
      )
      return Redacted.make(key)
    })

    const apiKeyHash = Effect.fn("Users.apiKeyHash")(function* (login: string) {
      const hash = yield* repo.apiKeyHashOf(login)
      if (Option.isNone(hash)) return yield* new ApiKeyNotFound({ login })
      return hash.value
    })

    const deleteApiKey = Effect.fn("Users.deleteApiKey")(function* (login: string) {
      yield* repo.deleteApiKey(login)
    })

    const userByApiKey = Effect.fn("Users.userByApiKey")(function* (key: Redacted.Redacted<string>) {
      return Option.map(yield* repo.findByApiKeyHash(hashApiKey(Redacted.value(key))), withoutHash)
    })

    return {
      add,
      get,
      list,
      remove,
      checkPassword,
      rememberedUser,
      openSession,
      sessionUser,
      closeSession,
      createApiKey,
      apiKeyHash,
      deleteApiKey,
      userByApiKey
    }
  })
}) {}
