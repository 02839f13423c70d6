import { randomUUID } from "node:crypto"
import { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { Deferred, Effect, PubSub, Schedule, Stream } from "effect"
import { DatabaseInfo } from "../db/Database.ts"
import { type TaskId, TaskId as TaskIdSchema } from "../domain/task/Task.ts"

export type TaskEventType = "queued" | "started" | "progress" | "finished" | "cancelled"

/** A task changed: engines wake up on `queued`, interrupt on `cancelled`; watchers re-read the task on any. */
export interface TaskEvent {
  readonly type: TaskEventType
  readonly kind: string
  readonly id: TaskId
}

const channel = "quarry_tasks"
const eventTypes: ReadonlySet<string> = new Set<TaskEventType>(["queued", "started", "progress", "finished", "cancelled"])

/**
 * The SQL expression a transition selects, once per changed row, to announce the change. `pg_notify` is
 * transactional: listeners hear of the change only once it is committed.
 */
export const notifyExpression = (type: TaskEventType) => `pg_notify('${channel}', '${type} ' || kind || ' ' || id)`

const isEventType = (text: string | undefined): text is TaskEventType => text !== undefined && eventTypes.has(text)

const parse = (payload: string): TaskEvent | undefined => {
  const [type, kind, id] = payload.split(" ")
  return isEventType(type) && kind !== undefined && id !== undefined ? { type, kind, id: TaskIdSchema.make(id) } : undefined
}

/**
 * Task changes, heard by every engine and watcher of this process. On PostgreSQL they come from LISTEN, so a
 * change made by any process sharing the database is heard. PGlite's socket does not deliver notifications,
 * and only one process can open an embedded database, so there the changes are published in-process.
 */
export class TaskEvents extends Effect.Service<TaskEvents>()("quarry/TaskEvents", {
  scoped: Effect.gen(function* () {
    const info = yield* DatabaseInfo
    const hub = yield* Effect.acquireRelease(PubSub.unbounded<TaskEvent>(), PubSub.shutdown)
    if (info.deliversNotifications) {
      const pg = yield* PgClient.PgClient
      const sql = yield* SqlClient.SqlClient
      const listening = yield* Deferred.make<void>()
      const probe = `ready ${randomUUID()}`
      yield* pg.listen(channel).pipe(
        Stream.runForEach((payload) => {
          if (payload === probe) return Deferred.succeed(listening, undefined)
          const event = parse(payload)
          return event === undefined ? Effect.void : PubSub.publish(hub, event)
        }),
        Effect.tapErrorCause((cause) => Effect.logWarning("task notifications lost; polling until LISTEN is back", cause)),
        Effect.retry(Schedule.spaced("1 second")),
        Effect.forkScoped
      )
      // LISTEN starts asynchronously: hear our own probe before relying on notifications.
      // pg_notify, not PgClient.notify: the latter sends `NOTIFY channel, $1`, which PostgreSQL rejects.
      yield* sql`SELECT pg_notify(${channel}, ${probe})`.pipe(
        Effect.zipRight(Deferred.await(listening).pipe(Effect.timeout("200 millis"))),
        Effect.retry({ times: 25 }),
        Effect.catchAllCause((cause) => Effect.logWarning("LISTEN not confirmed; the engine relies on polling", cause))
      )
    }

    /** Publishes changes the database does not announce itself (on PGlite); a no-op where NOTIFY is delivered. */
    const announce = Effect.fn("TaskEvents.announce")(function* (events: ReadonlyArray<TaskEvent>) {
      if (!info.deliversNotifications && events.length > 0) yield* PubSub.publishAll(hub, events)
    })

    let subscriptions = 0

    /** A queue of every change from now on, until the scope closes. */
    const subscribe = Effect.fn("TaskEvents.subscribe")(function* () {
      yield* Effect.acquireRelease(
        Effect.sync(() => subscriptions++),
        () => Effect.sync(() => subscriptions--)
      )
      return yield* PubSub.subscribe(hub)
    })

    /** How many subscriptions are open (engines and watchers): a watcher that went away must have released its own. */
    const openSubscriptions = Effect.sync(() => subscriptions)

    return { announce, subscribe, openSubscriptions }
  })
}) {}
