import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { eventually } from "../engine/helpers.ts"
import { testServerLayer } from "../helpers/server.ts"

const downloadDir = fs.mkdtempSync(path.join(os.tmpdir(), "quarry-expiry-"))
afterAll(() => fs.rmSync(downloadDir, { recursive: true, force: true }))

/** Writes a file in the download folder, last modified `hoursAgo` hours ago. */
const written = (name: string, hoursAgo: number) => {
  const file = path.join(downloadDir, name)
  fs.writeFileSync(file, "zip")
  const when = new Date(Date.now() - hoursAgo * 3_600_000)
  fs.utimesSync(file, when, when)
  return name
}

// Written before the server starts: the cleaner runs as soon as the service is up.
const expired = written("archive_local_2021-07-07T14_53_47.123Z[GMT].zip", 3)
const expiredPartial = written(".archive_local_2021-07-07T14_54_47.123Z[GMT].zip.part", 3)
const fresh = written("archive_local_2021-07-07T15_53_47.123Z[GMT].zip", 0)
const unrelated = written("notes.zip", 3)

describe("expired batch downloads", () => {
  layer(testServerLayer({ database: "pglite", cli: { batchDownloadDir: downloadDir, batchDownloadTimeToLive: "2" } }), {
    timeout: 60_000,
    excludeTestServices: true
  })((it) => {
    it.effect("archives older than batchDownloadTimeToLive hours are deleted when the service starts; other files stay", () =>
      Effect.gen(function* () {
        const names = yield* eventually(
          Effect.sync(() => fs.readdirSync(downloadDir)),
          (names) => !names.includes(expired) && !names.includes(expiredPartial)
        )
        expect(names.sort()).toEqual([fresh, unrelated].sort())
      })
    )
  })
})
