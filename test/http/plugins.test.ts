import { createHash, randomUUID } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { type ArchiveServer, closedPort, startArchiveServer } from "../helpers/archiveServer.ts"
import { bodyJson, bodyText, request, testServerLayer } from "../helpers/server.ts"
import { addUser, basic } from "../helpers/users.ts"
import { extensionJar, pluginTgz, pluginZip, rawTarGz, zipSlip } from "../fixtures/pluginArchives.ts"

const root = path.join(os.tmpdir(), `quarry-plugins-${randomUUID()}`)
const pluginsDir = path.join(root, "plugins")
const extensionsDir = path.join(root, "extensions")
const registryFile = path.join(root, "registry.json")
let archives: ArchiveServer

const entry = (id: string, version: string, file: string, type = "PLUGIN", extra: Record<string, string> = {}) => ({
  id,
  name: `${id} name`,
  version,
  description: `the ${id} package`,
  url: `${archives.url}/${file}`,
  homepage: `https://example.org/${id}`,
  type,
  ...extra
})

beforeAll(async () => {
  fs.mkdirSync(pluginsDir, { recursive: true })
  fs.mkdirSync(extensionsDir)
  archives = await startArchiveServer()
  archives.serve("/hello/quarry-plugin-hello-1.0.0.tgz", { _tag: "Bytes", bytes: await pluginTgz("1.0.0") })
  archives.serve("/hello/quarry-plugin-hello-2.0.0.zip", { _tag: "Bytes", bytes: await pluginZip("2.0.0") })
  archives.serve("/hello/quarry-plugin-hello-3.0.0.tgz", { _tag: "Stream", size: 256 * 1024 })
  archives.serve("/checked/quarry-plugin-checked-1.0.0.tgz", { _tag: "Bytes", bytes: await pluginTgz("1.0.0") })
  archives.serve("/evil.zip", { _tag: "Bytes", bytes: await zipSlip() })
  archives.serve("/evil.tgz", {
    _tag: "Bytes",
    bytes: await rawTarGz([
      { name: "ok.js", content: "1" },
      { name: "../../escaped-tar.js", content: "2" }
    ])
  })
  archives.serve("/text-1.0.0.tgz", { _tag: "Bytes", bytes: Buffer.from("this is not an archive\n") })
  archives.serve("/broken-1.0.0.tgz", { _tag: "Status", status: 500 })
  archives.serve("/stall-1.0.0.tgz", { _tag: "Stall" })
  archives.serve("/ext/quarry-ext-1.0.0-jar-with-dependencies.jar", { _tag: "Bytes", bytes: await extensionJar("1.0.0") })
  archives.serve("/ext/quarry-ext-1.1.0.jar", { _tag: "Redirect", location: "/storage/8f3a" })
  archives.serve("/storage/8f3a", { _tag: "Bytes", bytes: await extensionJar("1.1.0") })
  archives.serve("/ext/fake-1.0.0.jar", { _tag: "Bytes", bytes: Buffer.from("not a zip") })
  const otherArchive = Buffer.from("a different archive")
  fs.writeFileSync(
    registryFile,
    JSON.stringify({
      deliverableList: [
        entry("quarry-plugin-hello", "2.0.0", "hello/quarry-plugin-hello-2.0.0.zip"),
        entry("quarry-plugin-alert", "1.3.4", "missing/quarry-plugin-alert-1.3.4.tgz"),
        entry("quarry-plugin-evil", "1.0.0", "evil.zip"),
        entry("quarry-plugin-evil-tar", "1.0.0", "evil.tgz"),
        entry("quarry-plugin-checked", "1.0.0", "checked/quarry-plugin-checked-1.0.0.tgz", "PLUGIN", {
          sha256: createHash("sha256").update(otherArchive).digest("hex")
        }),
        entry("quarry-ext", "1.0.0", "ext/quarry-ext-1.0.0-jar-with-dependencies.jar", "NLP"),
        entry("quarry-ext-fake", "1.0.0", "ext/fake-1.0.0.jar", "WEB")
      ]
    })
  )
})
afterAll(async () => {
  await archives.close()
  fs.rmSync(root, { recursive: true, force: true })
})

const put = (pathAndQuery: string) => request(pathAndQuery, { method: "PUT" })
const del = (pathAndQuery: string) => request(pathAndQuery, { method: "DELETE" })
const listing = (pathAndQuery: string) => Effect.flatMap(request(pathAndQuery), bodyJson)
const entries = (dir: string) => (fs.existsSync(dir) ? fs.readdirSync(dir).sort() : [])
const read = (...parts: ReadonlyArray<string>) => fs.readFileSync(path.join(...parts), "utf8")
const q = encodeURIComponent

describe("plugins and extensions over HTTP, with a release host on loopback", () => {
  layer(
    testServerLayer({
      database: "pglite",
      cli: { pluginsDir, extensionsDir, deliverablesRegistry: registryFile, deliverableMaxSize: "64K", deliverableDownloadTimeout: "2" }
    })
  )((it) => {
    it.effect("lists the registry's plugins, not installed, sorted by id, in the reference's layout", () =>
      Effect.gen(function* () {
        const plugins = (yield* listing("/api/plugins")) as ReadonlyArray<{ id: string }>
        expect(plugins.map((plugin) => plugin.id)).toEqual([
          "quarry-plugin-alert",
          "quarry-plugin-checked",
          "quarry-plugin-evil",
          "quarry-plugin-evil-tar",
          "quarry-plugin-hello"
        ])
        expect(plugins[0]).toEqual({
          deliverableFromRegistry: {
            id: "quarry-plugin-alert",
            name: "quarry-plugin-alert name",
            version: "1.3.4",
            description: "the quarry-plugin-alert package",
            url: `${archives.url}/missing/quarry-plugin-alert-1.3.4.tgz`,
            homepage: "https://example.org/quarry-plugin-alert",
            type: "PLUGIN"
          },
          installed: false,
          id: "quarry-plugin-alert",
          name: "quarry-plugin-alert name",
          description: "the quarry-plugin-alert package",
          type: "PLUGIN",
          version: "1.3.4",
          installedVersion: null
        })
        const extensions = (yield* listing("/api/extensions")) as ReadonlyArray<{ id: string; type: string }>
        expect(extensions.map((extension) => [extension.id, extension.type])).toEqual([
          ["quarry-ext", "NLP"],
          ["quarry-ext-fake", "WEB"]
        ])
      })
    )

    it.effect("filters on id, name or description, ignoring case; regular-expression syntax beyond | ^ $ . .* is literal", () =>
      Effect.gen(function* () {
        const ids = (query: string) =>
          Effect.map(listing(`/api/plugins?filter=${q(query)}`), (items) => (items as ReadonlyArray<{ id: string }>).map((item) => item.id))
        expect(yield* ids("ALERT")).toEqual(["quarry-plugin-alert"])
        expect(yield* ids("evil.*tar|hello$")).toEqual(["quarry-plugin-evil-tar", "quarry-plugin-hello"])
        expect(yield* ids("^nothing")).toEqual([])
        expect(yield* ids("(unclosed")).toEqual([])
        expect((yield* request(`/api/extensions?filter=${q("[")}`)).status).toBe(200)
      })
    )

    it.effect("answers the preflights, 400 without id nor url, and 404 for an unknown id or a URL answering 404", () =>
      Effect.gen(function* () {
        for (const base of ["/api/plugins", "/api/extensions"]) {
          const install = yield* request(`${base}/install`, { method: "OPTIONS" })
          expect(install.status).toBe(200)
          expect(install.headers.get("access-control-allow-methods")).toBe("OPTIONS, PUT")
          const uninstall = yield* request(`${base}/uninstall`, { method: "OPTIONS" })
          expect(uninstall.headers.get("access-control-allow-methods")).toBe("OPTIONS, DELETE")
        }
        const neither = yield* put("/api/plugins/install")
        expect(neither.status).toBe(400)
        expect(yield* bodyJson(neither)).toEqual({ error: "id or url is required" })
        expect((yield* put(`/api/plugins/install?url=${q("file:///etc/passwd")}`)).status).toBe(400)
        const unknown = yield* put("/api/plugins/install?id=no-such-plugin")
        expect(unknown.status).toBe(404)
        expect(yield* bodyJson(unknown)).toEqual({ error: 'no plugin "no-such-plugin" in the registry' })
        // An extension id is not a plugin.
        expect((yield* put("/api/plugins/install?id=quarry-ext")).status).toBe(404)
        const missing = yield* put("/api/plugins/install?id=quarry-plugin-alert")
        expect(missing.status).toBe(404)
        expect(yield* bodyJson(missing)).toEqual({ error: `${archives.url}/missing/quarry-plugin-alert-1.3.4.tgz answered 404 Not Found` })
        expect(entries(pluginsDir)).toEqual([])
      })
    )

    it.effect("installs by URL, upgrades by id (the older version replaced), and shows both versions meanwhile", () =>
      Effect.gen(function* () {
        const byUrl = yield* put(`/api/plugins/install?url=${q(`${archives.url}/hello/quarry-plugin-hello-1.0.0.tgz`)}`)
        expect(byUrl.status).toBe(200)
        // The npm `package/` folder becomes the plugin's folder, named after the id and version.
        expect(entries(pluginsDir)).toEqual(["quarry-plugin-hello-1.0.0"])
        expect(read(pluginsDir, "quarry-plugin-hello-1.0.0", "dist", "main.js")).toBe('console.log("hello 1.0.0")\n')
        const [older] = (yield* listing("/api/plugins?filter=hello")) as ReadonlyArray<Record<string, unknown>>
        expect(older).toMatchObject({ id: "quarry-plugin-hello", installed: true, version: "1.0.0", installedVersion: "1.0.0" })
        expect(older!.deliverableFromRegistry).toMatchObject({ version: "2.0.0" })

        expect((yield* put("/api/plugins/install?id=quarry-plugin-hello")).status).toBe(200)
        expect(entries(pluginsDir)).toEqual(["quarry-plugin-hello-2.0.0"])
        expect(read(pluginsDir, "quarry-plugin-hello-2.0.0", "dist", "main.js")).toBe('console.log("hello 2.0.0")\n')
        const [newer] = (yield* listing("/api/plugins?filter=hello")) as ReadonlyArray<Record<string, unknown>>
        expect(newer).toMatchObject({ installed: true, version: "2.0.0", installedVersion: "2.0.0" })
        // Installing the same version again replaces it in place.
        expect((yield* put("/api/plugins/install?id=quarry-plugin-hello")).status).toBe(200)
        expect(entries(pluginsDir)).toEqual(["quarry-plugin-hello-2.0.0"])
      })
    )

    it.effect("injects the installed plugins' script and style tags into GET / and serves their files", () =>
      Effect.gen(function* () {
        const local = path.join(pluginsDir, "local-plugin-0.3.1")
        fs.mkdirSync(local)
        fs.writeFileSync(path.join(local, "index.js"), "console.log('local')\n")
        const page = yield* bodyText(yield* request("/"))
        expect(page).toContain('<link rel="stylesheet" href="/plugins/quarry-plugin-hello-2.0.0/dist/style.css"></head>')
        expect(page).toContain(
          '<script src="/plugins/local-plugin-0.3.1/index.js"></script><script src="/plugins/quarry-plugin-hello-2.0.0/dist/main.js"></script></body>'
        )
        const script = yield* request("/plugins/quarry-plugin-hello-2.0.0/dist/main.js")
        expect(script.status).toBe(200)
        expect(script.headers.get("content-type")).toBe("application/javascript;charset=UTF-8")
        expect(yield* bodyText(script)).toBe('console.log("hello 2.0.0")\n')
        expect((yield* request("/plugins/quarry-plugin-hello-2.0.0/missing.js")).status).toBe(404)
        expect((yield* request("/plugins/quarry-plugin-hello-2.0.0/%2e%2e/%2e%2e/registry.json")).status).toBe(404)
      })
    )

    it.effect("lists a package found in the folder but not in the registry, with its installed version", () =>
      Effect.gen(function* () {
        const [local] = (yield* listing("/api/plugins?filter=local")) as ReadonlyArray<unknown>
        expect(local).toEqual({
          deliverableFromRegistry: null,
          installed: true,
          id: "local-plugin",
          name: "local-plugin",
          description: null,
          type: "PLUGIN",
          version: "0.3.1",
          installedVersion: "0.3.1"
        })
        fs.writeFileSync(path.join(extensionsDir, "other-ext-2.0.jar"), "")
        const [other] = (yield* listing("/api/extensions?filter=other")) as ReadonlyArray<unknown>
        expect(other).toMatchObject({ deliverableFromRegistry: null, installed: true, id: "other-ext", type: "UNKNOWN", version: "2.0" })
      })
    )

    it.effect("refuses a zip-slip archive, zip or tar.gz, with nothing written anywhere", () =>
      Effect.gen(function* () {
        const before = entries(pluginsDir)
        const refusals = [
          [
            "quarry-plugin-evil",
            `refused ${archives.url}/evil.zip: the entry "../escaped.js" would be written outside the plugin directory`
          ],
          [
            "quarry-plugin-evil-tar",
            `refused ${archives.url}/evil.tgz: the entry "../../escaped-tar.js" would be written outside the plugin directory`
          ]
        ]
        for (const [id, error] of refusals) {
          const response = yield* put(`/api/plugins/install?id=${id}`)
          expect(response.status, id).toBe(422)
          expect(yield* bodyJson(response), id).toEqual({ error })
        }
        expect(entries(pluginsDir)).toEqual(before)
        expect(entries(root)).toEqual(["extensions", "plugins", "registry.json"])
      })
    )

    it.effect(
      "answers a clear error for an oversized, unreachable, failing, stalled or unverifiable download, the installed version untouched",
      () =>
        Effect.gen(function* () {
          const before = entries(pluginsDir)
          const installed = read(pluginsDir, "quarry-plugin-hello-2.0.0", "dist", "main.js")
          const attempt = (query: string) =>
            Effect.flatMap(put(`/api/plugins/install?${query}`), (response) =>
              Effect.map(bodyJson(response), (body) => ({ status: response.status, error: (body as { error: string }).error }))
            )
          const oversized = yield* attempt(`url=${q(`${archives.url}/hello/quarry-plugin-hello-3.0.0.tgz`)}`)
          expect(oversized).toEqual({
            status: 422,
            error: `refused ${archives.url}/hello/quarry-plugin-hello-3.0.0.tgz: larger than the 65536 bytes allowed (deliverableMaxSize)`
          })
          const unreachableUrl = `http://127.0.0.1:${yield* Effect.promise(closedPort)}/quarry-plugin-hello-4.0.0.tgz`
          const unreachable = yield* attempt(`url=${q(unreachableUrl)}`)
          expect(unreachable.status).toBe(502)
          expect(unreachable.error).toBe(`cannot download ${unreachableUrl}: connect ECONNREFUSED ${unreachableUrl.slice(7).split("/")[0]}`)
          expect(yield* attempt(`url=${q(`${archives.url}/broken-1.0.0.tgz`)}`)).toEqual({
            status: 502,
            error: `cannot download ${archives.url}/broken-1.0.0.tgz: the server answered 500`
          })
          expect(yield* attempt(`url=${q(`${archives.url}/stall-1.0.0.tgz`)}`)).toEqual({
            status: 504,
            error: `cannot download ${archives.url}/stall-1.0.0.tgz: no complete answer within 2 seconds`
          })
          expect(yield* attempt(`url=${q(`${archives.url}/text-1.0.0.tgz`)}`)).toEqual({
            status: 422,
            error: `refused ${archives.url}/text-1.0.0.tgz: not a zip, tar or tar.gz archive`
          })
          const checked = yield* attempt("id=quarry-plugin-checked")
          expect(checked.status).toBe(422)
          expect(checked.error).toMatch(/its SHA-256 [0-9a-f]{64} is not the registry's/)
          expect(entries(pluginsDir)).toEqual(before)
          expect(read(pluginsDir, "quarry-plugin-hello-2.0.0", "dist", "main.js")).toBe(installed)
        })
    )

    it.effect("installs extensions as files, replacing older versions, and refuses a jar that is not one", () =>
      Effect.gen(function* () {
        expect((yield* put("/api/extensions/install?id=quarry-ext")).status).toBe(200)
        expect(entries(extensionsDir)).toEqual(["other-ext-2.0.jar", "quarry-ext-1.0.0.jar"])
        // The release URL redirects to storage; the name comes from the URL asked for.
        const upgrade = yield* put(`/api/extensions/install?url=${q(`${archives.url}/ext/quarry-ext-1.1.0.jar`)}`)
        expect(upgrade.status).toBe(200)
        expect(archives.requests.slice(-2)).toEqual(["/ext/quarry-ext-1.1.0.jar", "/storage/8f3a"])
        expect(entries(extensionsDir)).toEqual(["other-ext-2.0.jar", "quarry-ext-1.1.0.jar"])
        expect(fs.readFileSync(path.join(extensionsDir, "quarry-ext-1.1.0.jar"))).toEqual(
          yield* Effect.promise(() => extensionJar("1.1.0"))
        )
        const [listed] = (yield* listing("/api/extensions?filter=^quarry-ext$")) as ReadonlyArray<unknown>
        expect(listed).toMatchObject({ id: "quarry-ext", installed: true, version: "1.1.0", installedVersion: "1.1.0", type: "NLP" })
        const fake = yield* put("/api/extensions/install?id=quarry-ext-fake")
        expect(fake.status).toBe(422)
        expect(yield* bodyJson(fake)).toEqual({
          error: `refused ${archives.url}/ext/fake-1.0.0.jar: the download is not the .jar archive its name says`
        })
        expect(entries(extensionsDir)).toEqual(["other-ext-2.0.jar", "quarry-ext-1.1.0.jar"])
      })
    )

    it.effect("leaves exactly one version when two versions of a package are installed at once", () =>
      Effect.gen(function* () {
        const [byUrl, byId] = yield* Effect.all(
          [
            put(`/api/plugins/install?url=${q(`${archives.url}/hello/quarry-plugin-hello-1.0.0.tgz`)}`),
            put("/api/plugins/install?id=quarry-plugin-hello")
          ],
          { concurrency: 2 }
        )
        expect([byUrl!.status, byId!.status]).toEqual([200, 200])
        const hello = entries(pluginsDir).filter((name) => name.startsWith("quarry-plugin-hello"))
        expect(hello).toHaveLength(1)
        expect(["quarry-plugin-hello-1.0.0", "quarry-plugin-hello-2.0.0"]).toContain(hello[0])
        expect(entries(pluginsDir).filter((name) => name.startsWith("."))).toEqual([])
      })
    )

    it.effect("uninstalls every version of a package, idempotently, 400 without id", () =>
      Effect.gen(function* () {
        fs.mkdirSync(path.join(pluginsDir, "quarry-plugin-hello-1.5.0"))
        const removed = yield* del("/api/plugins/uninstall?id=quarry-plugin-hello")
        expect(removed.status).toBe(204)
        expect(entries(pluginsDir)).toEqual(["local-plugin-0.3.1"])
        expect((yield* del("/api/plugins/uninstall?id=quarry-plugin-hello")).status).toBe(204)
        expect((yield* del("/api/plugins/uninstall?id=never-installed")).status).toBe(204)
        expect((yield* del("/api/plugins/uninstall")).status).toBe(400)
        const [hello] = (yield* listing("/api/plugins?filter=hello")) as ReadonlyArray<unknown>
        expect(hello).toMatchObject({ installed: false, version: "2.0.0", installedVersion: null })
        expect((yield* del(`/api/extensions/uninstall?id=${q(`${archives.url}/ext/quarry-ext-1.1.0.jar`)}`)).status).toBe(204)
        expect(entries(extensionsDir)).toEqual(["other-ext-2.0.jar"])
        expect(yield* bodyText(yield* request("/"))).not.toContain("quarry-plugin-hello")
      })
    )
  })
})

describe("plugins in SERVER mode", () => {
  const serverRoot = path.join(os.tmpdir(), `quarry-plugins-server-${randomUUID()}`)
  const serverPluginsDir = path.join(serverRoot, "plugins")
  beforeAll(() => {
    const privatePlugin = path.join(serverPluginsDir, "private-plugin-1.0")
    fs.mkdirSync(privatePlugin, { recursive: true })
    fs.writeFileSync(
      path.join(privatePlugin, "package.json"),
      JSON.stringify({ main: "p.js", private: true, datashare: { projects: ["secret-project"] } })
    )
    fs.writeFileSync(path.join(privatePlugin, "p.js"), "console.log('private')\n")
  })
  afterAll(() => fs.rmSync(serverRoot, { recursive: true, force: true }))

  layer(
    testServerLayer({
      database: "pglite",
      cli: {
        mode: "SERVER",
        pluginsDir: serverPluginsDir,
        extensionsDir: path.join(serverRoot, "extensions"),
        deliverablesRegistry: registryFile
      }
    })
  )((it) => {
    it.effect("lets only administrators install and remove, and loads private plugins for their projects' users", () =>
      Effect.gen(function* () {
        yield* addUser("ann", "pw", { projects: ["secret-project"] })
        yield* addUser("boss", "pw", { admin: true })
        const as = (login: string) => ({ headers: { authorization: basic(login, "pw") } })
        expect((yield* request("/api/plugins")).status).toBe(401)
        expect((yield* request("/api/plugins", as("ann"))).status).toBe(200)
        const refused = yield* request("/api/plugins/install?id=quarry-plugin-hello", { method: "PUT", ...as("ann") })
        expect(refused.status).toBe(403)
        expect(yield* bodyJson(refused)).toEqual({ error: "only administrators may install or remove plugins and extensions" })
        expect((yield* request("/api/plugins/uninstall?id=private-plugin", { method: "DELETE", ...as("ann") })).status).toBe(403)
        expect((yield* request("/api/plugins/install?id=quarry-plugin-hello", { method: "PUT", ...as("boss") })).status).toBe(200)
        expect(entries(serverPluginsDir)).toEqual(["private-plugin-1.0", "quarry-plugin-hello-2.0.0"])

        const helloScript = '<script src="/plugins/quarry-plugin-hello-2.0.0/dist/main.js"></script>'
        const privateScript = '<script src="/plugins/private-plugin-1.0/p.js"></script>'
        const anonymousPage = yield* bodyText(yield* request("/"))
        expect(anonymousPage).toContain(helloScript)
        expect(anonymousPage).not.toContain(privateScript)
        expect(yield* bodyText(yield* request("/", as("boss")))).not.toContain(privateScript)
        expect(yield* bodyText(yield* request("/", as("ann")))).toContain(privateScript)
        // Plugin files are public, like the page that loads them.
        expect((yield* request("/plugins/quarry-plugin-hello-2.0.0/dist/main.js")).status).toBe(200)
      })
    )
  })
})
