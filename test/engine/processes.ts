import { type ChildProcess, spawn } from "node:child_process"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { Deferred, type Duration, Effect, Stream, SubscriptionRef } from "effect"
import type { WorkerConfig } from "./fixtures/worker.ts"

const workerPath = path.join(path.dirname(fileURLToPath(import.meta.url)), "fixtures", "worker.ts")

export interface Worker {
  readonly process: ChildProcess
  /** The first stdout line matching `pattern`, printed already or awaited; dies after `timeout`. */
  readonly line: (pattern: RegExp, timeout?: Duration.DurationInput) => Effect.Effect<string>
  /** The exit code once the process ends (null when killed by a signal). */
  readonly exited: Effect.Effect<number | null>
  readonly signal: (signal: NodeJS.Signals) => Effect.Effect<void>
}

/** Starts test/engine/fixtures/worker.ts in its own node process, killed when the scope closes if still running. */
export const spawnWorker = (config: WorkerConfig) =>
  Effect.gen(function* () {
    const lines = yield* SubscriptionRef.make<ReadonlyArray<string>>([])
    const exit = yield* Deferred.make<number | null>()
    const child = yield* Effect.acquireRelease(
      Effect.sync(() =>
        spawn(process.execPath, ["--import", "tsx", workerPath, JSON.stringify(config)], { stdio: ["ignore", "pipe", "pipe"] })
      ),
      (child) => Effect.sync(() => child.exitCode === null && child.signalCode === null && child.kill("SIGKILL"))
    )
    let pending = ""
    child.stdout?.on("data", (chunk: Buffer) => {
      const parts = (pending + chunk.toString("utf8")).split("\n")
      pending = parts.pop() ?? ""
      Effect.runSync(SubscriptionRef.update(lines, (seen) => [...seen, ...parts]))
    })
    let errors = ""
    child.stderr?.on("data", (chunk: Buffer) => (errors += chunk.toString("utf8")))
    child.on("exit", (code) => Deferred.unsafeDone(exit, Effect.succeed(code)))
    const line = (pattern: RegExp, timeout: Duration.DurationInput = "30 seconds") =>
      lines.changes.pipe(
        Stream.map((seen) => seen.find((text) => pattern.test(text))),
        Stream.filter((text) => text !== undefined),
        Stream.runHead,
        Effect.flatten,
        Effect.timeoutFail({ duration: timeout, onTimeout: () => `no line matching ${pattern} from the worker; stderr: ${errors}` }),
        Effect.orDie
      )
    return {
      process: child,
      line,
      exited: Deferred.await(exit),
      signal: (signal: NodeJS.Signals) => Effect.sync(() => void child.kill(signal))
    } satisfies Worker
  })
