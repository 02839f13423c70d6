import { type ChildProcess, spawn } from "node:child_process"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { Deferred, Duration, Effect, Queue } from "effect"
import type { WorkerConfig } from "./fixtures/worker.ts"

const workerPath = path.join(path.dirname(fileURLToPath(import.meta.url)), "fixtures", "worker.ts")

export interface Worker {
  readonly process: ChildProcess
  /** Waits for a stdout line matching `pattern`, skipping earlier ones; dies after `timeout`. */
  readonly line: (pattern: RegExp, timeout?: Duration.DurationInput) => Effect.Effect<string>
  /** The exit code once the process ends (null when killed by a signal). */
  readonly exited: Effect.Effect<number | null>
  readonly signal: (signal: NodeJS.Signals) => Effect.Effect<void>
}

/** Starts test/engine/fixtures/worker.ts in its own node process, killed when the scope closes if still running. */
export const spawnWorker = (config: WorkerConfig) =>
  Effect.gen(function* () {
    const lines = yield* Queue.unbounded<string>()
    const exit = yield* Deferred.make<number | null>()
    const child = yield* Effect.acquireRelease(
      Effect.sync(() => spawn(process.execPath, ["--import", "tsx", workerPath, JSON.stringify(config)], { stdio: ["ignore", "pipe", "pipe"] })),
      (child) => Effect.sync(() => child.exitCode === null && child.signalCode === null && child.kill("SIGKILL"))
    )
    let pending = ""
    child.stdout?.on("data", (chunk: Buffer) => {
      const parts = (pending + chunk.toString("utf8")).split("\n")
      pending = parts.pop() ?? ""
      for (const part of parts) Queue.unsafeOffer(lines, part)
    })
    let errors = ""
    child.stderr?.on("data", (chunk: Buffer) => (errors += chunk.toString("utf8")))
    child.on("exit", (code) => Deferred.unsafeDone(exit, Effect.succeed(code)))
    const line = (pattern: RegExp, timeout: Duration.DurationInput = "30 seconds") =>
      Queue.take(lines).pipe(
        Effect.repeat({ until: (text) => pattern.test(text) }),
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
