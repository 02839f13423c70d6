/**
 * Indexes a folder, shows the tasks' progress, then runs a list of queries as a batch search and prints its results.
 *
 *   npx tsx examples/index-and-search.ts <folder under the server's dataDir> <query>... \
 *     [--url http://127.0.0.1:8080] [--user alice --password s3cret | --api-key KEY] [--transport ndjson|msgpack|websocket] \
 *     [--project local-datashare]
 *
 * Everything goes through the typed RPC client (`quarry/rpc/client`); a refused call ends with its typed error.
 */
import * as path from "node:path"
import { parseArgs } from "node:util"
import { Console, Effect, Stream } from "effect"
import { type Credentials, makeQuarryClient, type QuarryClient, type Transport } from "../src/rpc/client.ts"

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    url: { type: "string", default: "http://127.0.0.1:8080" },
    user: { type: "string" },
    password: { type: "string" },
    "api-key": { type: "string" },
    transport: { type: "string", default: "websocket" },
    project: { type: "string", default: "local-datashare" }
  }
})
const [folder, ...queries] = positionals
const transports: ReadonlyArray<string> = ["ndjson", "msgpack", "websocket"]

const credentials = (): Credentials | undefined => {
  if (values["api-key"] !== undefined) return { _tag: "ApiKey", key: values["api-key"] }
  if (values.user !== undefined) return { _tag: "Basic", user: values.user, password: values.password ?? "" }
  return undefined
}

/** `scan  [##########----------]  50%` for each task, redrawn in place. */
const progressBar = (label: string, progress: number | null, state: string) => {
  const width = 30
  const done = Math.round((progress ?? 0) * width)
  return `${label.padEnd(6)}[${"#".repeat(done)}${"-".repeat(width - done)}] ${String(Math.round((progress ?? 0) * 100)).padStart(3)}% ${state}`
}

const indexFolder = (client: QuarryClient, directory: string, project: string) =>
  Effect.gen(function* () {
    const { scan, index } = yield* client.scanAndIndex({ path: directory, options: { defaultProject: project } })
    const labels = new Map([
      [scan.id, "scan"],
      [index.id, "index"]
    ])
    const lines = new Map<string, string>()
    yield* client.watchManyTasks({ ids: [scan.id, index.id] }).pipe(
      Stream.runForEach((task) =>
        Effect.sync(() => {
          lines.set(task.id, progressBar(labels.get(task.id) ?? task.kind, task.progress, task.state))
          process.stdout.write(`\r${[...lines.values()].join("   ")}`)
        })
      )
    )
    process.stdout.write("\n")
  })

/** Runs the queries as one batch search, following its results as they are stored, grouped by query. */
const batchSearch = (client: QuarryClient, project: string) =>
  Effect.gen(function* () {
    const uuid = yield* client.createBatchSearch({ projects: [project], name: `example ${new Date().toISOString()}`, queries })
    yield* Console.log(`batch search ${uuid}`)
    let current: string | undefined
    yield* client.batchSearchResults({ uuid, follow: true }).pipe(
      Stream.runForEach((result) =>
        Effect.gen(function* () {
          if (result.query !== current) yield* Console.log(`\n${result.query}:`)
          current = result.query
          yield* Console.log(`  ${result.documentNumber + 1}. ${result.documentPath} (${result.contentType ?? "?"})`)
        })
      )
    )
    const { state, nbResults } = yield* client.getBatchSearch({ uuid })
    yield* Console.log(`\n${state}: ${nbResults} result(s)`)
  })

const program = Effect.gen(function* () {
  if (folder === undefined || queries.length === 0 || !transports.includes(values.transport)) {
    return yield* Console.error(
      "usage: index-and-search.ts <folder> <query>... [--url] [--user --password | --api-key] [--transport ndjson|msgpack|websocket]"
    )
  }
  const client = yield* makeQuarryClient({ url: values.url, credentials: credentials(), transport: values.transport as Transport })
  yield* indexFolder(client, path.resolve(folder), values.project)
  yield* batchSearch(client, values.project)
})

Effect.runPromise(Effect.scoped(program)).then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${String(error)}\n`)
    process.exit(1)
  }
)
