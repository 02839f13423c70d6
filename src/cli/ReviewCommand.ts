import type { SqlClient } from "@effect/sql"
import { Console, Effect, Layer } from "effect"
import { defaultSettingsFile, isKnownOption, resolveSettings, type Settings } from "../config/Settings.ts"
import type { BatchSearchNotFound } from "../domain/batch-search/BatchSearchErrors.ts"
import { bridgeCallerOf } from "../domain/review-bridge/BridgeCaller.ts"
import type { FromBatchSearchRequest } from "../domain/review-bridge/ReviewBridge.ts"
import type { ReviewBridgeForbidden, ReviewBridgeInvalid, ReviewBridgeNotFound } from "../domain/review-bridge/ReviewBridgeErrors.ts"
import { ReviewBridgeRepo } from "../domain/review-bridge/ReviewBridgeRepo.ts"
import { ReviewBridges } from "../domain/review-bridge/ReviewBridges.ts"
import type { DocumentIndexError } from "../search/DocumentIndex.ts"
import { CliFailure } from "./CliFailure.ts"

/** Options of the `review` commands; every other option is a setting (--dataSourceUrl…) and resolves as for `serve`. */
const reviewOptionNames = new Set([
  "user",
  "task",
  "name",
  "reviewProject",
  "choiceGroup",
  "checkers",
  "rounds",
  "queries",
  "maxHitsPerQuery",
  "skipReviewed",
  "tag",
  "confirming"
])

const usage =
  "usage: quarry review from-batch-search <uuid> (--reviewProject <id> --choiceGroup <id> [--checkers a,b] [--rounds n] [--name n] | --task <id>) " +
  "[--queries q1,q2] [--maxHitsPerQuery n] [--skipReviewed] [--user login] | review tag-documents <task> --tag <tag> --confirming v1,v2 [--user login]"

/** A checked command line: work against the review bridge, as `defaultUser` unless --user names another. */
type ReviewAction = (
  defaultUser: string
) => Effect.Effect<
  void,
  CliFailure | ReviewBridgeForbidden | ReviewBridgeInvalid | ReviewBridgeNotFound | BatchSearchNotFound | DocumentIndexError,
  ReviewBridges | ReviewBridgeRepo | Settings | SqlClient.SqlClient
>

const failure = (message: string) => new CliFailure({ message })

const list = (value: string | undefined) =>
  value
    ?.split(",")
    .map((item) => item.trim())
    .filter((item) => item.length > 0)

/** A positive integer option, undefined when absent. */
const count = (options: Readonly<Record<string, string>>, name: string) =>
  Effect.gen(function* () {
    const value = options[name]
    if (value === undefined) return undefined
    const parsed = Number(value)
    return Number.isSafeInteger(parsed) && parsed > 0 ? parsed : yield* failure(`--${name} takes a positive integer`)
  })

/** The request of `review from-batch-search`, checkers still named by login. */
const fromBatchSearchPlan = (uuid: string, options: Readonly<Record<string, string>>) =>
  Effect.gen(function* () {
    const skipReviewed = options.skipReviewed
    if (skipReviewed !== undefined && skipReviewed !== "true" && skipReviewed !== "false")
      return yield* failure("--skipReviewed takes no value; put it last")
    const request = {
      batchSearch: uuid,
      task: yield* count(options, "task"),
      name: options.name,
      project: yield* count(options, "reviewProject"),
      choiceGroup: yield* count(options, "choiceGroup"),
      rounds: yield* count(options, "rounds"),
      queries: list(options.queries),
      maxHitsPerQuery: yield* count(options, "maxHitsPerQuery"),
      skipReviewed: skipReviewed === "true"
    } satisfies Omit<FromBatchSearchRequest, "checkers">
    return { request, checkers: list(options.checkers) ?? [] }
  })

/** Checks the command line before any database is opened; answers what to run against the review bridge. */
const planCommand = (words: ReadonlyArray<string>, options: Readonly<Record<string, string>>): Effect.Effect<ReviewAction, CliFailure> =>
  Effect.gen(function* () {
    const [action, target, ...extra] = words
    if (extra.length > 0 || target === undefined) return yield* failure(usage)
    const caller = (login: string) => bridgeCallerOf(options.user ?? login)
    switch (action) {
      case "from-batch-search": {
        const { request, checkers } = yield* fromBatchSearchPlan(target, options)
        return (defaultUser: string) =>
          Effect.gen(function* () {
            const ids = yield* (yield* ReviewBridgeRepo).userIds(checkers)
            const unknown = checkers.filter((login) => !ids.has(login))
            if (unknown.length > 0) return yield* failure(`unknown checker ${unknown.join(", ")}`)
            const result = yield* (yield* ReviewBridges).fromBatchSearch(yield* caller(defaultUser), {
              ...request,
              ...(checkers.length > 0 ? { checkers: checkers.map((login) => ids.get(login)!) } : {})
            })
            yield* Console.log(
              `task ${result.task} ${result.createdTask ? "created" : "extended"}: ${result.records} records added, ${result.skipped} hits skipped`
            )
          })
      }
      case "tag-documents": {
        const task = Number(target)
        const tag = options.tag
        const confirmingValues = list(options.confirming) ?? []
        if (!Number.isSafeInteger(task) || task <= 0) return yield* failure(`the task is a number (${usage})`)
        if (tag === undefined || tag === "true") return yield* failure("review tag-documents needs --tag <tag>")
        return (defaultUser: string) =>
          Effect.gen(function* () {
            const result = yield* (yield* ReviewBridges).tagDocuments(yield* caller(defaultUser), { task, tag, confirmingValues })
            yield* Console.log(`${result.documents} documents of ${result.records} confirmed records tagged ${tag}`)
          })
      }
      default:
        return yield* failure(usage)
    }
  })

/**
 * `quarry review from-batch-search|tag-documents`, against the database the settings name, as `--user` (default:
 * defaultUserName) with that user's rights.
 */
export const runReviewCommand = (words: ReadonlyArray<string>, options: Readonly<Record<string, string>>) =>
  Effect.gen(function* () {
    const unknown = Object.keys(options).find((name) => !reviewOptionNames.has(name) && !isKnownOption(name))
    if (unknown !== undefined) return yield* failure(`unknown option --${unknown} (see --help)`)
    const command = yield* planCommand(words, options)
    const cli = Object.fromEntries(Object.entries(options).filter(([name]) => !reviewOptionNames.has(name)))
    const settings = yield* resolveSettings({ env: process.env, cli, defaultSettingsFile })
    // The document index and the extractor load only for a command line that passed its checks.
    const { reviewBridgeCommandLayer } = yield* Effect.promise(() => import("../DocumentLayers.ts"))
    return yield* command(settings.defaultUserName).pipe(
      Effect.provide(Layer.provideMerge(ReviewBridgeRepo.Default, reviewBridgeCommandLayer(settings)))
    )
  })
