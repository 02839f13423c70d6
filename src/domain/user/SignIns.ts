import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import type { SettingsShape } from "../../config/Settings.ts"
import { findReviewUser } from "../review/ReviewUser.ts"

/** Records that the user signed in now: the review API's `lastLogin`. */
export const recordSignIn = (login: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => sql`UPDATE users SET last_login = now() WHERE login = ${login}`).pipe(Effect.asVoid)

/**
 * LOCAL mode's user is signed in by starting the server (it has no sign-in of its own): its row is made if needed
 * and its sign-in recorded then. Nothing in SERVER mode.
 */
export const signInLocalUser = (settings: SettingsShape) =>
  settings.mode === "SERVER"
    ? Effect.void
    : Effect.zipRight(findReviewUser(settings.defaultUserName, true), recordSignIn(settings.defaultUserName))
