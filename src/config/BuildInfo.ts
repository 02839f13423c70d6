import { execFile } from "node:child_process"
import * as fs from "node:fs/promises"
import { fileURLToPath } from "node:url"
import { Effect, Option, Schema } from "effect"

/** The checkout Quarry runs from: package.json and, in a development or CI tree, the git repository. */
export const installationDirectory = fileURLToPath(new URL("../..", import.meta.url))

/** Runs one git command in `directory`; None when git is absent, the folder is no repository, or it is too slow. */
const git = (directory: string, ...args: ReadonlyArray<string>) =>
  Effect.async<Option.Option<string>>((resume) => {
    // GIT_OPTIONAL_LOCKS=0: `git status` must not take the index lock that a concurrent `git commit` needs.
    const child = execFile(
      "git",
      args,
      { cwd: directory, timeout: 5_000, env: { ...process.env, GIT_OPTIONAL_LOCKS: "0" } },
      (error, stdout) => resume(Effect.succeed(error === null ? Option.some(stdout.trim()) : Option.none()))
    )
    return Effect.sync(() => child.kill())
  })

const PackageJson = Schema.parseJson(Schema.Struct({ version: Schema.String }))

const packageVersion = (directory: string) =>
  Effect.tryPromise(() => fs.readFile(`${directory}/package.json`, "utf8")).pipe(
    Effect.flatMap(Schema.decodeUnknown(PackageJson)),
    Effect.map((pkg) => pkg.version),
    Effect.orElseSucceed(() => "unknown")
  )

/**
 * The `git.*` report of GET /version, in the layout of the reference's git.properties. There is no build step,
 * so the "build" is this start: its version is package.json's and its time the start-up time. Without git only
 * the version is reported; this never fails.
 */
export const readBuildInfo = (directory: string): Effect.Effect<Readonly<Record<string, string>>> =>
  Effect.gen(function* () {
    const version = yield* packageVersion(directory)
    const [head, branch, status, tags, describe, closestTag] = yield* Effect.all(
      [
        git(directory, "log", "-1", "--format=%H%n%h%n%cI%n%s"),
        git(directory, "rev-parse", "--abbrev-ref", "HEAD"),
        git(directory, "status", "--porcelain", "--untracked-files=no"),
        git(directory, "tag", "--points-at", "HEAD"),
        git(directory, "describe", "--tags", "--always", "--dirty"),
        git(directory, "describe", "--tags", "--abbrev=0")
      ],
      { concurrency: "unbounded" }
    )
    if (Option.isNone(head) || head.value === "") return { "git.build.version": version }
    const [id = "", abbrev = "", time = "", message = ""] = head.value.split("\n")
    const optional = (key: string, value: Option.Option<string>) =>
      Option.match(value, { onNone: () => ({}), onSome: (text) => ({ [key]: text }) })
    return {
      "git.build.version": version,
      "git.build.time": new Date().toISOString(),
      "git.commit.id": id,
      "git.commit.id.abbrev": abbrev,
      "git.commit.time": time,
      "git.commit.message.short": message,
      "git.dirty": String(Option.exists(status, (text) => text !== "")),
      "git.tags": Option.getOrElse(tags, () => "")
        .split("\n")
        .filter((tag) => tag !== "")
        .join(","),
      ...optional("git.branch", branch),
      ...optional("git.commit.id.describe", describe),
      ...optional("git.closest.tag.name", closestTag)
    }
  })

/** The version report, read once at start-up so that GET /version never runs a process. */
export class BuildInfo extends Effect.Service<BuildInfo>()("quarry/BuildInfo", {
  effect: Effect.map(readBuildInfo(installationDirectory), (properties) => ({ properties }))
}) {}
