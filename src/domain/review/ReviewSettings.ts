import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { dieOnSqlError } from "../../db/SqlFailure.ts"

/** A setting of the review front end; its key is its id. */
export interface ReviewSetting {
  readonly key: string
  readonly value: string
  readonly public: boolean
}

/** Built-in values; rows of review_settings override them by key. */
const defaults: Readonly<Record<string, string>> = {
  appName: "Prophecies",
  avatarUrlTemplate: "https://www.gravatar.com/avatar/{{ emailMd5 }}?d=retro",
  defaultLocale: "en",
  // Links of records made from batch-search hits: {project}, {id} and {routing} of the document (see the README).
  documentLinkTemplate: "/#/d/{project}/{id}/{routing}",
  helpLink: "",
  helpDescription: "",
  // Quarry's own sign-in page (kept at /login when webRoot serves a front end at /) and its sign-out route.
  loginUrl: "/login",
  loginWelcome: "",
  loginAccountDescription: "",
  loginAccountButton: "",
  logoutUrl: "/auth/signout",
  orgName: "ICIJ"
}

/** Keys public whatever the database says: the login page needs them before anyone signs in. */
const alwaysPublic = new Set(["loginUrl"])

/** Every setting (or only the public ones), defaults first then stored keys, in key order. */
export const listSettings = (publicOnly: boolean) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const stored = yield* sql<ReviewSetting>`SELECT key, value, public FROM review_settings`
    const byKey = new Map<string, ReviewSetting>()
    for (const [key, value] of Object.entries(defaults)) byKey.set(key, { key, value, public: alwaysPublic.has(key) })
    for (const row of stored) byKey.set(row.key, { key: row.key, value: row.value, public: row.public || alwaysPublic.has(row.key) })
    return [...byKey.values()]
      .filter((setting) => !publicOnly || setting.public)
      .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
  }).pipe(dieOnSqlError)

/** One setting's value: the stored one, else the built-in default (undefined for an unknown key). */
export const settingValue = (key: string) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const [stored] = yield* sql<{ value: string }>`SELECT value FROM review_settings WHERE key = ${key}`
    return stored?.value ?? defaults[key]
  }).pipe(dieOnSqlError)
