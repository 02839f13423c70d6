import * as path from "node:path"
import { Effect } from "effect"
import { Settings } from "../config/Settings.ts"
import { directoryInDataDir, startIndex, startScan, startScanAndIndex, taskOptions } from "../domain/ingest/Ingestion.ts"
import type { RpcCallers } from "./Caller.ts"
import { IngestRpcs } from "./IngestRpcs.ts"

/** Scans and index tasks started as the legacy task endpoints start them: same options, same checks. */
export const ingestRpcHandlers = (callers: RpcCallers) =>
  IngestRpcs.toLayer(
    Effect.gen(function* () {
      const settings = yield* Settings
      const inDataDir = (directory: string) => directoryInDataDir(settings.dataDir, directory)
      return {
        startIndex: ({ options }, { headers }) => callers.asCaller(headers, startIndex(taskOptions(settings, options))),
        startScan: ({ path: directory, options }, { headers }) =>
          callers.asCaller(
            headers,
            Effect.flatMap(inDataDir(directory), (checked) => startScan(checked, taskOptions(settings, options)))
          ),
        scanAndIndex: ({ path: directory, options }, { headers }) =>
          callers.asCaller(
            headers,
            Effect.flatMap(inDataDir(directory ?? path.resolve(settings.dataDir)), (checked) =>
              startScanAndIndex(checked, taskOptions(settings, options))
            )
          )
      }
    })
  )
