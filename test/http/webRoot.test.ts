import * as fs from "node:fs"
import * as http from "node:http"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { bodyJson, bodyText, request, TestServer, testServerLayer } from "../helpers/server.ts"

/**
 * `--webRoot`: a front end built here from code (a page, a content-hashed script, an unhashed one, a style sheet
 * under assets/) served at / and below, beside a secret file outside the folder that no path may reach.
 */
const outside = fs.mkdtempSync(path.join(os.tmpdir(), "quarry-webroot-"))
const webRoot = path.join(outside, "dist")
const secret = "the secret outside the web root"
const page = `<!doctype html><html><head><title>Front end</title><script src="/js/app.3f2a9c1b.js"></script></head><body><div id="app"></div></body></html>`
const script = `document.getElementById("app").textContent = "running"`

const writeFile = (relative: string, content: string) => {
  const file = path.join(webRoot, relative)
  fs.mkdirSync(path.dirname(file), { recursive: true })
  fs.writeFileSync(file, content)
}
writeFile("index.html", page)
writeFile("js/app.3f2a9c1b.js", script)
writeFile("js/runtime.js", "/* unhashed */")
writeFile("assets/index-4f3a9c1b.css", "body { color: black }")
writeFile("img/logo.svg", `<svg xmlns="http://www.w3.org/2000/svg"/>`)
writeFile(".env", secret)
fs.writeFileSync(path.join(outside, "secret.txt"), secret)
fs.symlinkSync(path.join(outside, "secret.txt"), path.join(webRoot, "leak.txt"))
fs.symlinkSync(outside, path.join(webRoot, "up"))
afterAll(() => fs.rmSync(outside, { recursive: true, force: true }))

/** A GET with the path sent as written: fetch would resolve `..` segments before sending them. */
const rawGet = (pathAsSent: string) =>
  Effect.flatMap(TestServer, (server) =>
    Effect.async<{ status: number; text: string }>((resume) => {
      const outgoing = http.request(`${server.url}/`, { method: "GET", path: pathAsSent }, (response) => {
        let text = ""
        response.setEncoding("utf8")
        response.on("data", (chunk: string) => (text += chunk))
        response.on("end", () => resume(Effect.succeed({ status: response.statusCode ?? 0, text })))
      })
      outgoing.on("error", (error) => resume(Effect.die(error)))
      outgoing.end()
    })
  )

describe("--webRoot serves a built front end", () => {
  layer(testServerLayer({ database: "pglite", cli: { webRoot } }), { timeout: 60_000 })((it) => {
    it.effect("its index.html at /, its files below with their content type and cache headers", () =>
      Effect.gen(function* () {
        const index = yield* request("/")
        expect(index.status).toBe(200)
        expect(index.headers.get("content-type")).toBe("text/html;charset=UTF-8")
        expect(index.headers.get("cache-control")).toBe("no-cache")
        expect(yield* bodyText(index)).toBe(page)

        const hashed = yield* request("/js/app.3f2a9c1b.js")
        expect(hashed.status).toBe(200)
        expect(hashed.headers.get("content-type")).toBe("application/javascript;charset=UTF-8")
        expect(hashed.headers.get("cache-control")).toBe("public, max-age=31536000, immutable")
        expect(yield* bodyText(hashed)).toBe(script)

        const unhashed = yield* request("/js/runtime.js")
        expect(unhashed.headers.get("cache-control")).toBe("no-cache")
        const style = yield* request("/assets/index-4f3a9c1b.css")
        expect(style.status).toBe(200)
        expect(style.headers.get("content-type")).toBe("text/css;charset=UTF-8")
        expect((yield* request("/img/logo.svg")).headers.get("content-type")).toBe("image/svg+xml")
      })
    )

    it.effect("a missing file answers 404", () =>
      Effect.gen(function* () {
        expect((yield* request("/js/missing.js")).status).toBe(404)
        expect((yield* request("/assets/missing-4f3a9c1b.js")).status).toBe(404)
      })
    )

    it.effect("a path escaping the folder is refused: .., encoded .., symbolic links, dot files", () =>
      Effect.gen(function* () {
        for (const attempt of [
          "/../secret.txt",
          "/js/../../secret.txt",
          "/%2e%2e/secret.txt",
          "/js/%2E%2E%2F%2E%2E%2Fsecret.txt",
          "/..%2fsecret.txt",
          "/leak.txt",
          "/up/secret.txt",
          "/.env",
          "/%00index.html"
        ]) {
          const answer = yield* rawGet(attempt)
          expect(answer.status, attempt).toBeGreaterThanOrEqual(400)
          expect(answer.status, attempt).toBeLessThan(500)
          expect(answer.text, attempt).not.toContain(secret)
        }
      })
    )

    it.effect("API routes keep precedence, and Quarry's own page stays at /login", () =>
      Effect.gen(function* () {
        const status = yield* request("/api/status")
        expect(status.status).toBe(200)
        expect(yield* bodyJson(status)).toMatchObject({ database: true })
        expect((yield* request("/api/v1/")).status).toBe(200)
        expect((yield* request("/api/nothing-here")).status).toBe(404)
        const login = yield* request("/login")
        expect(login.status).toBe(200)
        expect(yield* bodyText(login)).not.toBe(page)
        expect(login.headers.get("content-security-policy")).toContain("default-src 'self'")
        // Signing out leads back to that sign-in page, not to the front end.
        const out = yield* request("/auth/signout", { redirect: "manual" })
        expect(out.status).toBe(303)
        expect(out.headers.get("location")).toBe("/login?signout")
      })
    )
  })
})
