import { randomUUID } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, describe, expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { resolveSettings, Settings } from "../../../src/config/Settings.ts"
import { Deliverables } from "../../../src/domain/plugin/Deliverables.ts"
import { statusOf } from "../../../src/transport/Http.ts"

// The plugins and extensions "folders" are files: every filesystem step fails, as a broken disk would.
const root = path.join(os.tmpdir(), `quarry-deliverables-${randomUUID()}`)
fs.mkdirSync(root)
const notAFolder = path.join(root, "not-a-folder")
fs.writeFileSync(notAFolder, "")
afterAll(() => fs.rmSync(root, { recursive: true, force: true }))

const deliverablesOnFiles = Deliverables.Default.pipe(
  Layer.provide(
    Layer.effect(
      Settings,
      resolveSettings({
        env: {},
        cli: { pluginsDir: notAFolder, extensionsDir: notAFolder },
        defaultSettingsFile: path.join(root, "none.properties")
      })
    )
  ),
  Layer.orDie
)

describe("Deliverables on a broken plugins folder", () => {
  layer(deliverablesOnFiles)((it) => {
    it.effect("answers a filesystem error (HTTP 500) for listing, uninstalling and installing", () =>
      Effect.gen(function* () {
        const deliverables = yield* Deliverables
        const failures = [
          yield* Effect.flip(deliverables.list("plugin", undefined)),
          yield* Effect.flip(deliverables.uninstall("plugin", "datashare-plugin-site-alert")),
          yield* Effect.flip(deliverables.uninstall("extension", "datashare-nlp-opennlp")),
          // Fails while preparing its staging folder, before any download.
          yield* Effect.flip(deliverables.install("plugin", undefined, "http://127.0.0.1:9/x-1.0.0.tgz"))
        ]
        for (const failure of failures) {
          expect(failure._tag).toBe("DeliverableFilesystemError")
          expect(statusOf(failure)).toBe(500)
          expect(failure.message).toContain(notAFolder)
        }
      })
    )
  })
})
