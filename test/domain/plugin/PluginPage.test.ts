import { randomUUID } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import { injectAssets, pluginAssets, fileWithin } from "../../../src/domain/plugin/PluginPage.ts"

const root = path.join(os.tmpdir(), `quarry-plugin-page-${randomUUID()}`)
const pluginsDir = path.join(root, "plugins")

const write = (relative: string, content: string) => {
  fs.mkdirSync(path.dirname(path.join(pluginsDir, relative)), { recursive: true })
  fs.writeFileSync(path.join(pluginsDir, relative), content)
}
const packageJson = (dir: string, content: object) => write(`${dir}/package.json`, JSON.stringify(content))

beforeAll(() => {
  packageJson("a-full", { main: "dist/main.js", style: "dist/main.css" })
  write("a-full/dist/main.js", "1")
  packageJson("b-private", { main: "index.js", private: true, datashare: { projects: ["secret-project"] } })
  packageJson("c-no-main", { name: "c" })
  write("c-no-main/index.js", "ignored: a package.json without main loads nothing")
  write("d-index/index.js", "4")
  packageJson("e-escaping", { main: "../../outside.js", style: "/etc/style.css" })
  write("f-bad-json/package.json", "{ not json")
  packageJson(".installing-123", { main: "index.js" })
  write("file-at-top.js", "not a plugin directory")
  write("../outside.js", "outside")
  fs.symlinkSync(path.join(root, "outside.js"), path.join(pluginsDir, "d-index", "link.js"))
})
afterAll(() => fs.rmSync(root, { recursive: true, force: true }))

describe("pluginAssets", () => {
  it.effect("collects each plugin's main script and style in name order, skipping what cannot be loaded", () =>
    Effect.gen(function* () {
      // No private plugin is allowed here, and the projects are read only because one exists.
      const assets = yield* pluginAssets(pluginsDir, Effect.succeed(["local-datashare"]))
      expect(assets).toEqual({
        scripts: ["/plugins/a-full/dist/main.js", "/plugins/d-index/index.js"],
        styles: ["/plugins/a-full/dist/main.css"]
      })
    })
  )

  it.effect("loads a private plugin only for users of one of its projects", () =>
    Effect.gen(function* () {
      const assets = yield* pluginAssets(pluginsDir, Effect.succeed(["other", "secret-project"]))
      expect(assets.scripts).toEqual(["/plugins/a-full/dist/main.js", "/plugins/b-private/index.js", "/plugins/d-index/index.js"])
    })
  )

  it.effect("never reads the user's projects without a private plugin, and adds nothing for a missing folder", () =>
    Effect.gen(function* () {
      const publicOnly = path.join(root, "public-only")
      fs.mkdirSync(path.join(publicOnly, "p"), { recursive: true })
      fs.writeFileSync(path.join(publicOnly, "p", "index.js"), "")
      const assets = yield* pluginAssets(publicOnly, Effect.die("the projects were read"))
      expect(assets.scripts).toEqual(["/plugins/p/index.js"])
      expect(yield* pluginAssets(path.join(root, "missing"), Effect.die("the projects were read"))).toEqual({ scripts: [], styles: [] })
    })
  )
})

describe("injectAssets", () => {
  it("puts style sheets before </head> and scripts before </body>", () => {
    const page = "<html><head><title>x</title></head><body><main></main></body></html>"
    expect(injectAssets(page, { scripts: ["/plugins/a/x.js", "/plugins/b/y.js"], styles: ["/plugins/a/x.css"] })).toBe(
      '<html><head><title>x</title><link rel="stylesheet" href="/plugins/a/x.css"></head><body><main></main>' +
        '<script src="/plugins/a/x.js"></script><script src="/plugins/b/y.js"></script></body></html>'
    )
  })
})

describe("fileWithin", () => {
  it.effect("serves the regular files of plugins and nothing else", () =>
    Effect.gen(function* () {
      const found = yield* fileWithin(pluginsDir, "a-full/dist/main.js")
      expect(Option.map(found, (file) => file.size)).toEqual(Option.some(1))
      for (const refused of [
        "a-full/dist",
        "a-full/../../outside.js",
        ".installing-123/package.json",
        "d-index/link.js",
        "nothing.js",
        ""
      ]) {
        expect(Option.isNone(yield* fileWithin(pluginsDir, refused)), refused).toBe(true)
      }
    })
  )
})
