import { randomUUID } from "node:crypto"
import * as os from "node:os"
import { Context, Duration, Layer } from "effect"

export interface EngineConfigShape {
  /** Names this engine in `lease_owner`; unique per process. */
  readonly workerId: string
  /** Tasks of one kind running at once in this process, unless the kind or `kindConcurrency` says otherwise. */
  readonly parallelism: number
  /** Per-kind overrides of the number of tasks running at once, by kind name. */
  readonly kindConcurrency: Readonly<Record<string, number>>
  /** How long a claim holds a task without a heartbeat; after that another engine may re-run it. */
  readonly leaseDuration: Duration.Duration
  readonly heartbeatInterval: Duration.Duration
  /** How often the reaper requeues tasks whose lease expired. */
  readonly reapInterval: Duration.Duration
  /** Claim loops look for work this often even without a wake-up (lost notifications, other processes on PGlite). */
  readonly pollInterval: Duration.Duration
  /** Progress reports are written at most this often (all running tasks in one statement). */
  readonly progressInterval: Duration.Duration
  /** A task whose lease expired this many times is marked ERROR instead of being re-run. */
  readonly maxAttempts: number
}

export class EngineConfig extends Context.Tag("quarry/EngineConfig")<EngineConfig, EngineConfigShape>() {}

type DurationKeys = "leaseDuration" | "heartbeatInterval" | "reapInterval" | "pollInterval" | "progressInterval"

/** Any subset of the settings; durations in any form Duration accepts ("200 millis", 200). */
export type EngineOptions = { readonly [K in Exclude<keyof EngineConfigShape, DurationKeys>]?: EngineConfigShape[K] } & {
  readonly [K in DurationKeys]?: Duration.DurationInput
}

/** The engine's settings: production defaults, overridden by `options` (tests use short intervals). */
export const makeEngineConfig = (options: EngineOptions = {}): EngineConfigShape => ({
  workerId: options.workerId ?? `${os.hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`,
  parallelism: options.parallelism ?? Math.max(2, os.cpus().length),
  kindConcurrency: options.kindConcurrency ?? {},
  leaseDuration: Duration.decode(options.leaseDuration ?? "60 seconds"),
  heartbeatInterval: Duration.decode(options.heartbeatInterval ?? "15 seconds"),
  reapInterval: Duration.decode(options.reapInterval ?? "30 seconds"),
  pollInterval: Duration.decode(options.pollInterval ?? "2 seconds"),
  progressInterval: Duration.decode(options.progressInterval ?? "250 millis"),
  maxAttempts: options.maxAttempts ?? 5
})

export const engineConfigLayer = (options: EngineOptions = {}) => Layer.sync(EngineConfig, () => makeEngineConfig(options))
