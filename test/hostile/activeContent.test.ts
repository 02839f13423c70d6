import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { indexFiles, writeText } from "../helpers/indexing.ts"
import { request, testServerLayer } from "../helpers/server.ts"

const project = "local-datashare"
const sandbox = "sandbox; default-src 'none'; style-src 'unsafe-inline'; img-src data:"

const source = (id: string, query: string) =>
  Effect.map(request(`/api/${project}/documents/src/${id}${query}`), (response) => ({
    status: response.status,
    type: response.headers.get("content-type"),
    disposition: response.headers.get("content-disposition"),
    policy: response.headers.get("content-security-policy"),
    nosniff: response.headers.get("x-content-type-options")
  }))

describe("Originals served from Quarry's origin cannot run as its pages", () => {
  layer(testServerLayer({ database: "pglite" }), { timeout: 60_000, excludeTestServices: true })((it) => {
    it.effect("a leaked HTML page stays an attachment even with inline=true, unless a sandboxed preview is asked for", () =>
      Effect.gen(function* () {
        const files = [
          yield* writeText(
            "leak.html",
            "<!doctype html><html><head><title>Leak</title></head><body><p>secret</p><script>fetch('/api/users/me')</script></body></html>"
          ),
          yield* writeText("drawing.svg", '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(document.cookie)</script></svg>'),
          yield* writeText("notes.txt", "plain words, shown inline")
        ]
        const [html, svg, text] = yield* indexFiles(project, files)
        const inline = yield* source(html!.id, "?inline=true")
        expect(inline).toMatchObject({ status: 200, disposition: 'attachment;filename="leak.html"', policy: sandbox, nosniff: "nosniff" })
        const preview = yield* source(html!.id, "?inline=true&sandbox=true")
        expect(preview).toMatchObject({ status: 200, disposition: null, policy: sandbox, nosniff: "nosniff" })
        // Detection takes this SVG for text: shown inline as text/plain, which nosniff keeps from being rendered as SVG.
        expect(yield* source(svg!.id, "?inline=true")).toMatchObject({
          type: expect.stringMatching(/^text\/plain/),
          disposition: null,
          policy: sandbox,
          nosniff: "nosniff"
        })
        expect(yield* source(html!.id, "")).toMatchObject({
          type: expect.stringMatching(/^text\/html/),
          disposition: 'attachment;filename="leak.html"',
          policy: sandbox
        })
        expect(yield* source(text!.id, "?inline=true")).toMatchObject({
          status: 200,
          disposition: null,
          policy: sandbox,
          nosniff: "nosniff"
        })
      })
    )

    it.effect("the web page forbids other sites to frame it and loads only its own files", () =>
      Effect.gen(function* () {
        const page = yield* request("/")
        const policy = page.headers.get("content-security-policy") ?? ""
        expect(policy).toContain("frame-ancestors 'self'")
        expect(policy).toContain("script-src 'self'")
        expect(policy).toContain("object-src 'none'")
        expect(page.headers.get("x-content-type-options")).toBe("nosniff")
        // Nothing inline in the built page that the policy would block.
        const html = yield* Effect.promise(() => page.text())
        expect(html).not.toMatch(/<script(?![^>]*\ssrc=)[^>]*>/)
        expect(html).not.toMatch(/<style|\sstyle=/)
      })
    )
  })
})
