import { Context, Effect, Schedule } from "effect"
import { TaskEvents } from "../../src/engine/TaskEvents.ts"
import { type Credentials, makeQuarryClient, type Transport } from "../../src/rpc/client.ts"
import { TestServer } from "../helpers/server.ts"

export const transports: ReadonlyArray<Transport> = ["ndjson", "msgpack", "websocket"]

/** The package's typed client of the running test server. */
export const quarryClient = (transport: Transport = "ndjson", credentials?: Credentials) =>
  Effect.flatMap(TestServer, (server) => makeQuarryClient({ url: server.url, transport, credentials }))

/** How many task-event subscriptions the server holds (its engines' and its watchers'). */
export const openSubscriptions = Effect.flatMap(TestServer, (server) => Context.get(server.context, TaskEvents).openSubscriptions)

/** Waits until `count` is `expected`, failing the test after 10 seconds. */
export const eventually = <E, R>(count: Effect.Effect<number, E, R>, expected: number) =>
  count.pipe(
    Effect.repeat({ until: (value) => value === expected, schedule: Schedule.spaced("20 millis") }),
    Effect.timeoutFail({ duration: "10 seconds", onTimeout: () => new Error(`never reached ${expected}`) })
  )
