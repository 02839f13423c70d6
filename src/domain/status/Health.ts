import { SqlClient } from "@effect/sql"
import { Duration, Effect } from "effect"
import { Settings } from "../../config/Settings.ts"

/** The status report of the legacy API (`GET /api/status`). */
export interface StatusReport {
  readonly database: boolean
  readonly index: boolean
  readonly databus: boolean
  readonly document_queue_status: boolean
  readonly document_queue_size: number
}

const probeTimeout = Duration.seconds(2)
const cacheMillis = 1_000

/**
 * The cluster's root request (`GET /`, under the address's path prefix as the search client uses it). Credentials
 * in the address become a Basic Authorization header: fetch refuses a URL that carries them.
 */
const clusterPing = (address: string) => {
  const url = new URL(address)
  const credentials = url.username === "" ? undefined : `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`
  url.username = ""
  url.password = ""
  const headers: Record<string, string> =
    credentials === undefined ? {} : { authorization: `Basic ${Buffer.from(credentials).toString("base64")}` }
  return { url, headers }
}

/**
 * Real health checks of the database and the search index. The last report is answered at once, and one older
 * than a second is refreshed in the background: a monitoring scrape storm costs the database one round trip per
 * second, not one per request, and no scrape waits for a database busy with searches (a refresh waiting for a
 * connection made a status request take hundreds of milliseconds). Only the very first request waits.
 */
export class Health extends Effect.Service<Health>()("quarry/Health", {
  scoped: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const settings = yield* Settings
    const scope = yield* Effect.scope
    const database = sql`SELECT 1`.pipe(
      Effect.timeout(probeTimeout),
      Effect.as(true),
      Effect.catchAll(() => Effect.succeed(false))
    )
    const elasticsearch = (address: string) => {
      const { url, headers } = clusterPing(address)
      return Effect.tryPromise((signal) => fetch(url, { headers, signal: AbortSignal.any([signal, AbortSignal.timeout(2_000)]) })).pipe(
        Effect.map((response) => response.ok),
        Effect.catchAll(() => Effect.succeed(false))
      )
    }
    // Without Elasticsearch the index lives in PostgreSQL, so it is up exactly when the database is.
    const address = settings.elasticsearchAddress
    const check = Effect.gen(function* () {
      const [databaseUp, indexUp] =
        address === undefined
          ? yield* Effect.map(database, (up) => [up, up] as const)
          : yield* Effect.all([database, elasticsearch(address)], { concurrency: 2 })
      return {
        database: databaseUp,
        index: indexUp,
        // The data bus is in-process (a PubSub), so it is up while the process is.
        databus: true,
        document_queue_status: databaseUp,
        document_queue_size: 0
      } satisfies StatusReport
    })
    // A plain timestamped slot rather than Effect.cachedWithTTL (a semaphore and a deferred per read) and a
    // property rather than an Effect.fn method (a stack capture and a span per call): this is the hot path of
    // every monitoring scrape, measured by `npm run bench -- http`.
    let latest: { readonly report: StatusReport; readonly at: number } | undefined
    let refreshing = false
    const refresh = check.pipe(
      Effect.tap((report) => Effect.sync(() => (latest = { report, at: Date.now() }))),
      Effect.ensuring(Effect.sync(() => (refreshing = false)))
    )
    const status = Effect.suspend(() => {
      if (latest === undefined) return refresh
      if (Date.now() - latest.at < cacheMillis || refreshing) return Effect.succeed(latest.report)
      refreshing = true
      return Effect.as(Effect.forkIn(refresh, scope), latest.report)
    })
    return { status }
  })
}) {}

const gaugeLine = (labels: string, value: number, timestamp: number) => `datashare{${labels}} ${value} ${timestamp}\n`

/** The OpenMetrics text of the status report, one gauge sample per resource. */
export const toOpenMetrics = (report: StatusReport, timestamp: number, platform: string | undefined) => {
  const environment = platform === undefined ? "" : `environment="${platform}",`
  const flag = (resource: keyof StatusReport, up: boolean) =>
    gaugeLine(`${environment}status="${up ? "OK" : "KO"}",resource="${resource}"`, up ? 1 : 0, timestamp)
  return (
    "# HELP datashare The datashare resources status\n" +
    "# TYPE datashare gauge\n" +
    flag("database", report.database) +
    flag("index", report.index) +
    flag("databus", report.databus) +
    flag("document_queue_status", report.document_queue_status) +
    gaugeLine(`${environment}resource="document_queue_size"`, report.document_queue_size, timestamp)
  )
}
