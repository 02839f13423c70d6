import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { bodyText, request, testServerLayer } from "../helpers/server.ts"

describe("the web page and its assets", () => {
  layer(testServerLayer({ database: "pglite" }))((it) => {
    it.effect("serves the built page at / for revalidation, and its hashed assets with a year's immutable cache", () =>
      Effect.gen(function* () {
        const page = yield* request("/")
        expect(page.status).toBe(200)
        expect(page.headers.get("content-type")).toBe("text/html;charset=UTF-8")
        expect(page.headers.get("cache-control")).toBe("no-cache")
        const html = yield* bodyText(page)
        const assets = [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((match) => match[1]!)
        expect(assets.some((asset) => /\/assets\/index-[\w-]+\.js$/.test(asset))).toBe(true)
        expect(assets.some((asset) => asset.endsWith(".css"))).toBe(true)
        for (const asset of assets) {
          const answer = yield* request(asset)
          expect(answer.status).toBe(200)
          expect(answer.headers.get("cache-control")).toBe("public, max-age=31536000, immutable")
          expect(answer.headers.get("content-type")).toMatch(asset.endsWith(".js") ? /^application\/javascript/ : /^text\/css/)
          const bytes = yield* Effect.promise(() => answer.arrayBuffer())
          expect(bytes.byteLength).toBe(Number(answer.headers.get("content-length")))
        }
      })
    )

    it.effect("answers 404 for assets that do not exist and for names that would leave the assets folder, 400 for a NUL", () =>
      Effect.gen(function* () {
        for (const target of ["/assets/missing-0000.js", "/assets/..%2Findex.html", "/assets/.hidden.js"]) {
          const answer = yield* request(target)
          expect(answer.status, target).toBe(404)
          expect(answer.headers.get("cache-control"), target).toBeNull()
        }
        // A NUL is refused before any route, as in every URL.
        const nul = yield* request("/assets/index.html%00.js")
        expect(nul.status).toBe(400)
        expect(nul.headers.get("cache-control")).toBeNull()
      })
    )
  })

  layer(testServerLayer({ database: "pglite", cli: { mode: "SERVER" } }))((it) => {
    it.effect("leaves WWW-Authenticate out of a 401 for scripts that sign in themselves, so that browsers show no Basic prompt", () =>
      Effect.gen(function* () {
        const plain = yield* request("/api/users/me")
        expect(plain.status).toBe(401)
        expect(plain.headers.get("www-authenticate")).toBe('Basic realm="datashare"')
        const fromPage = yield* request("/api/users/me", { headers: { "x-requested-with": "XMLHttpRequest" } })
        expect(fromPage.status).toBe(401)
        expect(fromPage.headers.get("www-authenticate")).toBeNull()
        expect(yield* bodyText(fromPage)).toContain('"error"')
      })
    )
  })
})
