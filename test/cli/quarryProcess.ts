import { type ChildProcess, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { Data, Deferred, Effect } from "effect"

const root = fileURLToPath(new URL("../..", import.meta.url))

/** A HOME of its own, so that no settings file of the machine is read; removed when the scope closes. */
export const isolatedHome = Effect.acquireRelease(
  Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "quarry-cli-home-"))),
  (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
)

/**
 * The environment of a child: this one without DS_DOCKER_ variables, with `home` as HOME, plus `extra`. The cache
 * stays this user's: new embedded databases start from the copies kept there (src/db/EmbeddedTemplates.ts).
 */
export const childEnv = (home: string, extra: Readonly<Record<string, string>> = {}) => ({
  ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("DS_DOCKER_"))),
  HOME: home,
  XDG_CACHE_HOME: process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), ".cache"),
  ...extra
})

/**
 * Quarry the way `npm start` runs it: one node process with the tsx loader, so that signals reach it directly
 * (npx would also add its own warnings to stderr).
 */
const spawnQuarry = (
  args: ReadonlyArray<string>,
  home: string,
  env: Readonly<Record<string, string>>,
  nodeArgs: ReadonlyArray<string> = []
) => spawn(process.execPath, [...nodeArgs, "--import", "tsx", "src/main.ts", ...args], { cwd: root, env: childEnv(home, env) })

export interface Finished {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
  readonly stdout: string
  readonly stderr: string
}

const collect = (child: ChildProcess) => {
  const output = { stdout: "", stderr: "" }
  child.stdout?.on("data", (chunk: Buffer) => (output.stdout += chunk.toString()))
  child.stderr?.on("data", (chunk: Buffer) => (output.stderr += chunk.toString()))
  const finished = Effect.async<Finished>((resume) => {
    if (child.exitCode !== null || child.signalCode !== null) {
      return resume(Effect.succeed({ code: child.exitCode, signal: child.signalCode, ...output }))
    }
    child.once("close", (code, signal) => resume(Effect.succeed({ code, signal, ...output })))
  })
  return { output, finished }
}

/** Runs a command line to its end (killed if the test is interrupted). */
export const runQuarry = (args: ReadonlyArray<string>, home: string, env: Readonly<Record<string, string>> = {}) =>
  Effect.acquireUseRelease(
    Effect.sync(() => spawnQuarry(args, home, env)),
    (child) => collect(child).finished,
    (child) => Effect.sync(() => child.exitCode === null && child.signalCode === null && child.kill("SIGKILL"))
  )

export class QuarryDidNotStart extends Data.TaggedError("QuarryDidNotStart")<{ readonly run: Finished }> {}

/**
 * Starts a server and waits for its `listening on <url>` line. The scope kills it if the test did not stop it.
 * `stop` sends a signal and waits for the exit. `nodeArgs` go to node itself (a benchmark's `--cpu-prof`).
 */
export const startQuarry = (
  args: ReadonlyArray<string>,
  home: string,
  env: Readonly<Record<string, string>> = {},
  nodeArgs: ReadonlyArray<string> = []
) =>
  Effect.gen(function* () {
    const child = yield* Effect.acquireRelease(
      Effect.sync(() => spawnQuarry(args, home, env, nodeArgs)),
      (child) => Effect.sync(() => child.exitCode === null && child.signalCode === null && child.kill("SIGKILL"))
    )
    const { output, finished } = collect(child)
    const listening = yield* Deferred.make<string>()
    child.stdout?.on("data", () => {
      const match = /listening on (http:\/\/[^\s"]+)/.exec(output.stdout)
      if (match !== null) Deferred.unsafeDone(listening, Effect.succeed(match[1]!))
    })
    const url = yield* Effect.raceFirst(
      Deferred.await(listening),
      Effect.flatMap(finished, (run) => Effect.fail(new QuarryDidNotStart({ run })))
    ).pipe(Effect.timeout("45 seconds"))
    const pid = child.pid ?? 0
    const stop = (signal: NodeJS.Signals) =>
      Effect.zipRight(
        Effect.sync(() => child.kill(signal)),
        finished
      )
    return { url, pid, output, stop }
  })
