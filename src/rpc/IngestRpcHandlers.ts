import * as path from "node:path"
import { Effect } from "effect"
import { Settings } from "../config/Settings.ts"
import { indexPayloadOf, optionTexts } from "../domain/ingest/IngestOptions.ts"
import { Engine } from "../engine/Engine.ts"
import { IndexJob } from "../engine/kinds/IndexJob.ts"
import { ScanJob } from "../engine/kinds/ScanJob.ts"
import { directoryInDataDir, scanPayloadFor } from "../http/legacy/IndexTaskHttp.ts"
import { CurrentUser } from "../domain/user/CurrentUser.ts"
import { requireWritableProject, type RpcCallers } from "./Caller.ts"
import { IngestRpcs } from "./IngestRpcs.ts"

/** Scans and index tasks started as the legacy task endpoints start them: same options, same checks. */
export const ingestRpcHandlers = (callers: RpcCallers) =>
  IngestRpcs.toLayer(
    Effect.gen(function* () {
      const settings = yield* Settings
      const engine = yield* Engine
      const optionsOf = (options: Readonly<Record<string, unknown>> | undefined) => ({ ...settings.values, ...optionTexts(options ?? {}) })
      const defaults = { project: settings.defaultProject, parallelism: settings.parallelism }
      const userId = Effect.map(CurrentUser, (current) => current.user.id)

      const scan = (directory: string, options: Readonly<Record<string, string>>) =>
        Effect.flatMap(directoryInDataDir(settings.dataDir, directory), (checked) => scanPayloadFor(checked, options))

      return {
        startIndex: ({ options }, { headers }) =>
          callers.asCaller(
            headers,
            Effect.gen(function* () {
              const payload = yield* indexPayloadOf(optionsOf(options), defaults)
              yield* requireWritableProject(payload.project)
              return yield* engine.submit(IndexJob, payload, { userId: yield* userId })
            })
          ).pipe(Effect.catchTag("SqlError", Effect.die)),
        startScan: ({ path: directory, options }, { headers }) =>
          callers.asCaller(
            headers,
            Effect.gen(function* () {
              const payload = yield* scan(directory, optionsOf(options))
              return yield* engine.submit(ScanJob, payload, { userId: yield* userId })
            })
          ).pipe(Effect.catchTag("SqlError", Effect.die)),
        scanAndIndex: ({ path: directory, options }, { headers }) =>
          callers.asCaller(
            headers,
            Effect.gen(function* () {
              const texts = optionsOf(options)
              const scanPayload = yield* scan(directory ?? path.resolve(settings.dataDir), texts)
              const indexPayload = yield* indexPayloadOf(texts, defaults)
              yield* requireWritableProject(indexPayload.project)
              const user = yield* userId
              return { scan: yield* engine.submit(ScanJob, scanPayload, { userId: user }), index: yield* engine.submit(IndexJob, indexPayload, { userId: user }) }
            })
          ).pipe(Effect.catchTag("SqlError", Effect.die))
      }
    })
  )
