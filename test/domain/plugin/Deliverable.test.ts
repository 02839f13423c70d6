import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { randomUUID } from "node:crypto"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import { compareVersions, fileExtension, installName, parseName, type RegistryEntry } from "../../../src/domain/plugin/Deliverable.ts"
import { nameFilter } from "../../../src/domain/NameFilter.ts"
import { packagesOf } from "../../../src/domain/plugin/Installed.ts"
import { readRegistry, shippedRegistryFile } from "../../../src/domain/plugin/Registry.ts"

describe("names of installed packages", () => {
  it("reads the id and version from file and directory names", () => {
    expect(parseName("datashare-plugin-site-alert-1.3.4.tgz")).toEqual({ id: "datashare-plugin-site-alert", version: "1.3.4" })
    expect(parseName("datashare-nlp-opennlp-8.0.2-jar-with-dependencies.jar")).toEqual({ id: "datashare-nlp-opennlp", version: "8.0.2" })
    expect(parseName("quarry-plugin-hello-v2.0.0.zip")).toEqual({ id: "quarry-plugin-hello", version: "2.0.0" })
    expect(parseName("my-extension.bin")).toEqual({ id: "my-extension", version: null })
    // A directory keeps what looks like an extension: only files lose theirs.
    expect(parseName("my.plugin-1.2", false)).toEqual({ id: "my.plugin", version: "1.2" })
    expect(parseName("my.plugin", false)).toEqual({ id: "my.plugin", version: null })
  })

  it("names what it installs after the id and version, keeping the file's extension", () => {
    expect(installName("hello", "2.0.0")).toBe("hello-2.0.0")
    expect(installName("hello", "v2.0.0")).toBe("hello-2.0.0")
    expect(installName("hello", null, ".jar")).toBe("hello.jar")
    expect(fileExtension("x-1.0.tar.gz")).toBe(".tar.gz")
    expect(fileExtension("x-1.0.JAR")).toBe(".jar")
    expect(fileExtension("x-1.0")).toBe("")
  })

  it("orders versions by their numeric parts", () => {
    expect(compareVersions("1.10.0", "1.9.9")).toBeGreaterThan(0)
    expect(compareVersions("1.0", "1.0.0")).toBe(0)
    expect(compareVersions(null, "0.0.1")).toBeLessThan(0)
    expect(compareVersions("2.0.0-beta", "2.0.0-alpha")).toBeGreaterThan(0)
  })
})

const entry = (id: string, version: string): RegistryEntry => ({
  id,
  name: `${id} name`,
  version,
  description: null,
  url: `https://example.org/${id}-${version}.tgz`,
  homepage: null,
  type: "PLUGIN"
})

describe("packagesOf", () => {
  const registry = new Map([
    ["alpha", entry("alpha", "2.0.0")],
    ["beta", entry("beta", "1.0.0")]
  ])
  const installed = [
    { fileName: "alpha-1.9.0", id: "alpha", version: "1.9.0" },
    { fileName: "alpha-1.10.0", id: "alpha", version: "1.10.0" },
    { fileName: "zeta-0.1", id: "zeta", version: "0.1" }
  ]

  it("shows the newest installed version of each id, and packages absent from the registry", () => {
    const listed = packagesOf("plugin", registry, installed, nameFilter(undefined))
    expect(
      listed.map((item) => [item.id, item.installed, item.version, item.installedVersion, item.deliverableFromRegistry?.version ?? null])
    ).toEqual([
      ["alpha", true, "1.10.0", "1.10.0", "2.0.0"],
      ["beta", false, "1.0.0", null, "1.0.0"],
      ["zeta", true, "0.1", "0.1", null]
    ])
  })

  it("matches the registry on id, name and description, and installed items on their file name", () => {
    expect(packagesOf("plugin", registry, installed, nameFilter("BETA NAME")).map((item) => item.id)).toEqual(["beta"])
    expect(packagesOf("plugin", registry, installed, nameFilter("1\\.9")).map((item) => item.id)).toEqual(["alpha"])
    // An item listed through the registry still shows what is installed.
    expect(packagesOf("plugin", registry, installed, nameFilter("alpha name"))[0]).toMatchObject({
      installed: true,
      installedVersion: "1.10.0"
    })
    expect(packagesOf("extension", new Map(), installed, nameFilter("zeta"))[0]).toMatchObject({
      type: "UNKNOWN",
      name: "zeta",
      description: null
    })
  })
})

describe("readRegistry", () => {
  it.effect("reads the shipped registry: the reference's seven plugins and six extensions", () =>
    Effect.gen(function* () {
      const registry = yield* readRegistry(shippedRegistryFile)
      expect([...registry.plugin.keys()]).toContain("datashare-plugin-site-alert")
      expect(registry.plugin.size).toBe(7)
      expect([...registry.extension.values()].map((item) => item.type).sort()).toEqual(["NLP", "NLP", "NLP", "NLP", "WEB", "WEB"])
    })
  )

  it.effect("fails with the file and the reason for a missing or invalid registry", () =>
    Effect.gen(function* () {
      const file = path.join(os.tmpdir(), `quarry-registry-${randomUUID()}.json`)
      const missing = yield* Effect.exit(readRegistry(file))
      expect(Exit.isFailure(missing)).toBe(true)
      fs.writeFileSync(file, JSON.stringify({ deliverableList: [{ ...entry("a", "1"), id: "../escape" }] }))
      const invalid = yield* Effect.flip(readRegistry(file))
      fs.rmSync(file)
      expect(invalid._tag).toBe("RegistryInvalid")
      expect(invalid.message).toContain(`the deliverables registry ${file} cannot be used (--deliverablesRegistry)`)
      expect(invalid.message).toContain("../escape")
    })
  )
})
