/**
 * `npm run bench -- rpc`: calls per second of `getTask` through the typed client over HTTP/NDJSON, HTTP/MessagePack
 * and WebSocket, against the same read through its HTTP endpoint (`GET /api/task/<id>` with fetch), all on one
 * Quarry in this process (embedded database, LOCAL mode), each with the same number of concurrent callers.
 */
import * as os from "node:os"
import * as path from "node:path"
import { Chunk, Effect, ManagedRuntime, Stream } from "effect"
import { resolveSettings } from "../src/config/Settings.ts"
import { HttpServerInfo } from "../src/http/Server.ts"
import { makeQuarryClient, type Transport } from "../src/rpc/client.ts"
import { quarryLayer } from "../src/Quarry.ts"
import { report } from "./report.ts"

const seconds = Number(process.env.BENCH_SECONDS ?? 3)
/** Rounds alternate between the ways of calling so that a change in machine load hits all alike. */
const rounds = 3
const callers = Number(process.env.BENCH_CALLERS ?? 16)

/** Calls per second of `call` repeated by `callers` concurrent fibers for `duration` seconds. */
const callsPerSecond = (call: Effect.Effect<unknown, unknown>, duration: number) =>
  Effect.gen(function* () {
    let calls = 0
    const started = Date.now()
    const deadline = started + duration * 1000
    const caller = Effect.whileLoop({
      while: () => Date.now() < deadline,
      body: () => Effect.orDie(call),
      step: () => void calls++
    })
    yield* Effect.all(
      Array.from({ length: callers }, () => caller),
      { concurrency: "unbounded", discard: true }
    )
    return Math.round(calls / ((Date.now() - started) / 1000))
  })

const median = (values: ReadonlyArray<number>) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!

const measure = Effect.gen(function* () {
  const settings = yield* resolveSettings({
    env: {},
    cli: { tcpListenPort: "0", dataSourceUrl: "pglite:memory", dataDir: os.tmpdir() },
    defaultSettingsFile: path.join(os.tmpdir(), "quarry-bench-no-settings.properties")
  })
  const runtime = yield* Effect.acquireRelease(
    Effect.sync(() => ManagedRuntime.make(quarryLayer(settings))),
    (runtime) => Effect.promise(() => runtime.dispose())
  )
  const { url } = yield* Effect.promise(() => runtime.runPromise(HttpServerInfo))

  const transports: ReadonlyArray<Transport> = ["ndjson", "msgpack", "websocket"]
  const clients = yield* Effect.forEach(transports, (transport) => makeQuarryClient({ url, transport }))
  // A finished task to read: an index task of a project with nothing queued ends at once.
  const task = yield* clients[0]!.startIndex({})
  yield* clients[0]!.watchTasks({ id: task.id }).pipe(Stream.runCollect, Effect.map(Chunk.size))
  const viaHttp = Effect.promise(() => fetch(`${url}/api/task/${task.name}`).then((response) => response.json()))
  const ways = [...clients.map((client) => client.getTask({ id: task.id })), viaHttp]

  yield* Effect.forEach(ways, (way) => callsPerSecond(way, 1)) // warm-up: JIT, connections
  const figures = ways.map((): Array<number> => [])
  for (let round = 0; round < rounds; round++) {
    for (const [index, way] of ways.entries()) figures[index]!.push(yield* callsPerSecond(way, seconds))
  }
  const [ndjson, msgpack, websocket, http] = figures.map(median) as [number, number, number, number]
  return { ndjson, msgpack, websocket, http }
})

export const run = async () => {
  const { ndjson, msgpack, websocket, http } = await Effect.runPromise(Effect.scoped(measure))
  report("rpc", {
    procedure: "getTask",
    endpoint: "GET /api/task/<id>",
    callers,
    seconds,
    rounds,
    ndjsonCallsPerSecond: ndjson,
    msgpackCallsPerSecond: msgpack,
    websocketCallsPerSecond: websocket,
    baselineHttpCallsPerSecond: http,
    msgpackRatio: Number((msgpack / http).toFixed(3)),
    websocketRatio: Number((websocket / http).toFixed(3)),
    ratio: Number((ndjson / http).toFixed(3))
  })
}
