import type { SqlError } from "@effect/sql"
import { Effect, Layer, Redacted } from "effect"
import { defaultSettingsFile, isKnownOption, resolveSettings } from "../config/Settings.ts"
import { projectsInDetails, type StoredUser } from "../domain/user/User.ts"
import type { InvalidUser, UserNotFound } from "../domain/user/UserErrors.ts"
import { Users } from "../domain/user/Users.ts"
import { migratedDatabase, usersLayer } from "../SharedLayers.ts"
import { CliFailure } from "./CliFailure.ts"

/** Options of `user add`; every other option is a setting (--dataSourceUrl…) and resolves as for `serve`. */
const userOptionNames = new Set(["password", "email", "name", "projects", "admin"])

const usage =
  "usage: quarry user add <login> --password <pw> [--email e] [--name n] [--projects a,b] [--admin] | user list | user remove <login>"

/** What a command line becomes once checked: work against Users. */
type UserAction = Effect.Effect<void, InvalidUser | UserNotFound | SqlError.SqlError, Users>

const failure = (message: string) => new CliFailure({ message })

const orDash = (value: string | null | undefined) => (value === null || value === undefined || value === "" ? "-" : value)

/** One tab-separated line: login, name, email, projects, roles. */
const userLine = (user: StoredUser) =>
  [user.login, orDash(user.name), orDash(user.email), orDash(projectsInDetails(user.details).join(",")), orDash(user.roles.join(","))].join(
    "\t"
  )

const addUser = (login: string, options: Readonly<Record<string, string>>) =>
  Effect.gen(function* () {
    const password = options.password
    if (password === undefined || password === "true") return yield* failure("user add needs --password <pw>")
    const admin = options.admin
    if (admin !== undefined && admin !== "true" && admin !== "false") {
      return yield* failure("--admin takes no value; put it after the login")
    }
    const projects = options.projects
      ?.split(",")
      .map((project) => project.trim())
      .filter((project) => project.length > 0)
    return Effect.gen(function* () {
      const { created } = yield* (yield* Users).add({
        login,
        password: Redacted.make(password),
        name: options.name,
        email: options.email,
        projects,
        admin: admin === "true"
      })
      console.log(`user ${login} ${created ? "created" : "updated"}`)
    })
  })

/** Checks the command line before any database is opened, and returns what to run against Users. */
const planCommand = (words: ReadonlyArray<string>, options: Readonly<Record<string, string>>) =>
  Effect.gen(function* () {
    const [action, login, ...extra] = words
    if (extra.length > 0) return yield* failure(`unexpected ${extra.join(" ")} (${usage})`)
    const own = Object.keys(options).filter((name) => userOptionNames.has(name))
    if (action !== "add" && own.length > 0) return yield* failure(`--${own[0]} applies to user add only`)
    switch (action) {
      case "add":
        if (login === undefined) return yield* failure(usage)
        return yield* addUser(login, options)
      case "list":
        if (login !== undefined) return yield* failure(usage)
        return Effect.flatMap(Users, (users) => users.list()).pipe(Effect.map((all) => all.forEach((user) => console.log(userLine(user)))))
      case "remove":
        if (login === undefined) return yield* failure(usage)
        return Effect.flatMap(Users, (users) => users.remove(login)).pipe(Effect.map(() => console.log(`user ${login} removed`)))
      default:
        return yield* failure(usage)
    }
  })

/** `quarry user add|list|remove`, against the database the settings name (a running server's embedded one is locked). */
export const runUserCommand = (words: ReadonlyArray<string>, options: Readonly<Record<string, string>>) =>
  Effect.gen(function* () {
    const unknown = Object.keys(options).find((name) => !userOptionNames.has(name) && !isKnownOption(name))
    if (unknown !== undefined) return yield* failure(`unknown option --${unknown} (see --help)`)
    const command: UserAction = yield* planCommand(words, options)
    const cli = Object.fromEntries(Object.entries(options).filter(([name]) => !userOptionNames.has(name)))
    const settings = yield* resolveSettings({ env: process.env, cli, defaultSettingsFile })
    return yield* command.pipe(Effect.provide(usersLayer.pipe(Layer.provide(migratedDatabase(settings)))))
  })
