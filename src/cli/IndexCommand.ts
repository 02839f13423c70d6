import * as fs from "node:fs"
import * as path from "node:path"
import { type Duration, Effect, Option } from "effect"
import { defaultSettingsFile, isKnownOption, resolveSettings } from "../config/Settings.ts"
import { DocumentQueue } from "../domain/ingest/DocumentQueue.ts"
import { indexPayloadOf, queueOf, scanPayloadOf } from "../domain/ingest/IngestOptions.ts"
import { isFinished, type Task } from "../domain/task/Task.ts"
import { Engine } from "../engine/Engine.ts"
import { JobQueue } from "../engine/JobQueue.ts"
import { IndexJob, type IndexRate, indexRateOf } from "../engine/kinds/IndexJob.ts"
import { ScanJob } from "../engine/kinds/ScanJob.ts"
import { indexingLayer } from "../Quarry.ts"
import { CliFailure } from "./CliFailure.ts"

/** The stages of Datashare's CLI mode that Quarry runs. */
const knownStages = ["SCAN", "INDEX"] as const
type Stage = (typeof knownStages)[number]

const isStage = (name: string): name is Stage => (knownStages as ReadonlyArray<string>).includes(name)

const failure = (message: string) => new CliFailure({ message })

/** `--stages SCAN,INDEX` as a list; a missing or unknown stage is a failure naming the ones there are. */
export const parseStages = (value: string | undefined): Effect.Effect<ReadonlyArray<Stage>, CliFailure> => {
  if (value === undefined || value === "true") return Effect.fail(failure("--mode CLI needs --stages, e.g. --stages SCAN,INDEX"))
  const names = value
    .split(",")
    .map((name) => name.trim().toUpperCase())
    .filter((name) => name !== "")
  const unknown = names.find((name) => !isStage(name))
  if (unknown !== undefined || names.length === 0) {
    return Effect.fail(failure(`unknown stage ${unknown ?? value} in --stages; CLI mode runs ${knownStages.join(", ")}`))
  }
  return Effect.succeed(names.filter(isStage))
}

/** What the progress shows: files taken of those known so far, the rate, and the time left once the scan is over. */
export interface IndexProgress {
  readonly rate: IndexRate
  /** Files taken plus those still queued; it grows while the scan runs. */
  readonly total: number
  readonly scanning: boolean
}

const duration = (seconds: number) => {
  const whole = Math.round(seconds)
  if (whole < 60) return `${whole}s`
  if (whole < 3600) return `${Math.floor(whole / 60)}m${String(whole % 60).padStart(2, "0")}s`
  return `${Math.floor(whole / 3600)}h${String(Math.floor((whole % 3600) / 60)).padStart(2, "0")}m`
}

/** `1234/10875 files  89.1 files/s  2.1 MB/s  ETA 1m48s`; the ETA waits for the scan, which may still add files. */
export const progressText = (progress: IndexProgress) => {
  const { rate, total } = progress
  const left = total - rate.files
  const eta = progress.scanning ? "scanning" : rate.filesPerSecond > 0 ? `ETA ${duration(left / rate.filesPerSecond)}` : "ETA -"
  return `${rate.files}/${total} files  ${rate.filesPerSecond} files/s  ${rate.megabytesPerSecond} MB/s  ${eta}`
}

/** A bar of `width` characters before the progress text, for a terminal. */
export const progressBar = (progress: IndexProgress, width = 30) => {
  const filled = progress.total === 0 ? 0 : Math.min(width, Math.floor((progress.rate.files / progress.total) * width))
  return `[${"#".repeat(filled)}${".".repeat(width - filled)}] ${progressText(progress)}`
}

/**
 * Where the progress goes: a bar redrawn in place on a terminal, and otherwise (a log, a pipe) a plain line every few
 * seconds, so that a log keeps a readable history.
 */
const progressOutput = (terminal: boolean) => {
  let lastLine = 0
  let drawn = false
  const interval: Duration.DurationInput = terminal ? "250 millis" : "1 second"
  return {
    interval,
    show: (progress: IndexProgress) =>
      Effect.sync(() => {
        if (terminal) {
          // Back to the start of the line, the bar, then the rest of the previous line cleared.
          process.stdout.write(`\r${progressBar(progress)}\u001b[K`)
          drawn = true
          return
        }
        const now = Date.now()
        if (now - lastLine < 5_000) return
        lastLine = now
        process.stdout.write(`index: ${progressText(progress)}\n`)
      }),
    end: Effect.sync(() => {
      if (drawn) process.stdout.write("\n")
    })
  }
}

/** The task as it is now, or a failure if it ended otherwise than DONE. */
const finishedOrFailed = (task: Task) =>
  task.state === "ERROR" || task.state === "CANCELLED"
    ? Effect.fail(failure(`the ${task.kind} task ended ${task.state}${task.error === null ? "" : `: ${task.error}`}`))
    : Effect.succeed(task)

/**
 * `--mode CLI --stages SCAN,INDEX`: scans the data folder into the project's queue and indexes it with the engine of
 * this process, showing the progress, and returns once the last stage is done. Interrupted (Ctrl-C), its tasks are
 * stopped rather than left queued.
 */
export const runIndexCommand = (extraWords: ReadonlyArray<string>, cliOptions: Readonly<Record<string, string>>) =>
  Effect.gen(function* () {
    const { mode: _mode, stages: stagesOption, ...options } = cliOptions
    const stages = yield* parseStages(stagesOption)
    const unknown = Object.keys(options).find((name) => !isKnownOption(name))
    if (unknown !== undefined) return yield* failure(`unknown option --${unknown} (see --help)`)
    if (extraWords.length > 0) return yield* failure(`unexpected argument ${extraWords[0]} (see --help)`)
    // The settings of LOCAL mode: CLI mode is one local user working on the local files.
    const settings = yield* resolveSettings({ env: process.env, cli: { ...options, mode: "LOCAL" }, defaultSettingsFile })
    const directory = path.resolve(settings.dataDir)
    if (stages.includes("SCAN") && !fs.statSync(directory, { throwIfNoEntry: false })?.isDirectory()) {
      return yield* failure(`the data folder ${directory} does not exist or is not a folder (--dataDir)`)
    }
    // Followed links stay in the data folder, as they do for an administrator's scan on the server.
    const scanPayload = {
      ...(yield* scanPayloadOf(directory, settings.defaultProject, settings.values)),
      boundary: fs.realpathSync(directory)
    }
    const indexPayload = yield* indexPayloadOf(settings.values, { project: settings.defaultProject, parallelism: settings.parallelism })

    return yield* Effect.gen(function* () {
      const engine = yield* Engine
      const jobs = yield* JobQueue
      const queue = yield* DocumentQueue
      const submitted: Array<Task> = []
      const submitOptions = { userId: settings.defaultUserName }
      if (stages.includes("SCAN")) submitted.push(yield* engine.submit(ScanJob, scanPayload, submitOptions))
      if (stages.includes("INDEX")) submitted.push(yield* engine.submit(IndexJob, indexPayload, submitOptions))
      const read = (task: Task) =>
        Effect.map(
          jobs.find(task.id),
          Option.getOrElse(() => task)
        )
      const output = progressOutput(process.stdout.isTTY === true)
      const queueKey = { project: indexPayload.project, queueName: queueOf(indexPayload) }

      const watch = Effect.gen(function* () {
        for (;;) {
          const current = yield* Effect.forEach(submitted, read)
          const index = current.find((task) => task.kind === IndexJob.name)
          const scan = current.find((task) => task.kind === ScanJob.name)
          const rate = index === undefined ? undefined : indexRateOf(index, new Date())
          const total = rate === undefined ? 0 : rate.files + (yield* queue.remaining(queueKey))
          // Nothing to show before the scan has queued a first file.
          if (rate !== undefined && total > 0) {
            yield* output.show({ rate, total, scanning: scan !== undefined && !isFinished(scan.state) })
          }
          if (current.every((task) => isFinished(task.state))) return yield* Effect.forEach(current, finishedOrFailed)
          yield* Effect.sleep(output.interval)
        }
      })
      const finished = yield* watch.pipe(
        Effect.ensuring(output.end),
        Effect.onInterrupt(() => Effect.forEach(submitted, (task) => Effect.ignore(engine.stop(task)), { discard: true }))
      )
      for (const task of finished) {
        if (task.kind === ScanJob.name) process.stdout.write(`scan: ${String(task.result)} files queued from ${directory}\n`)
        const rate = indexRateOf(task, new Date())
        if (rate !== undefined) {
          const megabytes = (rate.bytes / 1024 ** 2).toFixed(1)
          process.stdout.write(
            `index: ${rate.files} files (${megabytes} MB) indexed into project ${indexPayload.project}: ${rate.filesPerSecond} files/s, ${rate.megabytesPerSecond} MB/s\n`
          )
        }
      }
    }).pipe(Effect.provide(DocumentQueue.Default), Effect.provide(indexingLayer(settings)))
  })
