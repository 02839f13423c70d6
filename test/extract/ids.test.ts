import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises"
import * as os from "node:os"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { documentId, duplicateId, embeddedDocumentId } from "../../src/extract/DocumentId.ts"
import { Extractor } from "../../src/extract/Extractor.ts"
import { attachmentBytes, type CorpusFile, phrases } from "../fixtures/corpus.ts"
import { byName, flatten, options, project, sha384, useCorpus } from "./helpers.ts"

const corpus = useCorpus()

const extract = (file: CorpusFile) => Effect.flatMap(Extractor, (extractor) => extractor.extract(corpus.path(file), options))
const bytesOf = (file: CorpusFile) => Effect.promise(() => readFile(corpus.path(file)))

describe("document ids", () => {
  it("a file's id is SHA-384 of the project name then the bytes, lowercase hex", () => {
    const bytes = Buffer.from("hello world\n", "utf8")
    expect(documentId("local-datashare", bytes)).toBe(sha384("local-datashare", bytes))
    expect(documentId("local-datashare", bytes)).toMatch(/^[0-9a-f]{96}$/)
    // Known values, from `printf 'local-datashare%s' 'hello world' | sha384sum` and `printf 'hello world' | sha384sum`.
    const known = Buffer.from("hello world", "utf8")
    expect(documentId("local-datashare", known)).toBe(
      "17b598bba5d967189bb6ca1e96f5e3524c93e8d9bc04414d61114d90b3c6ff15ff09a0361ed1514ae35a52f0639df698"
    )
    expect(duplicateId(known)).toBe("fdbd8e75a67f29f701a4e040385e2e23986303ea10239211af907fcbb83578b3e417cb71ce646efd0819dd8c088de1bd")
    expect(documentId("other-project", bytes)).not.toBe(documentId("local-datashare", bytes))
  })

  it("a Duplicate's id is SHA-384 of the bytes alone", () => {
    const bytes = Buffer.from([0, 1, 2, 255])
    expect(duplicateId(bytes)).toBe(sha384(bytes))
  })

  it("an embedded id hashes the content digest, the parent id, then the relationship id and name when present", () => {
    const digest = sha384("pcontent")
    const parentId = sha384("pparent")
    expect(embeddedDocumentId({ digest, parentId })).toBe(sha384(digest, parentId))
    expect(embeddedDocumentId({ digest, parentId, resourceName: "a.txt" })).toBe(sha384(digest, parentId, "a.txt"))
    expect(embeddedDocumentId({ digest, parentId, relationshipId: "rId7", resourceName: "é.txt" })).toBe(
      sha384(digest, parentId, "rId7", "é.txt")
    )
  })

  it.layer(Extractor.Default)((it) => {
    it.effect("extracted roots carry the reference's id and the Duplicate id of their bytes", () =>
      Effect.gen(function* () {
        for (const file of ["utf8", "pdf", "zip"] as const) {
          const document = yield* extract(file)
          const bytes = yield* bytesOf(file)
          expect(document.id).toBe(sha384(project, bytes))
          expect(document.duplicateId).toBe(sha384(bytes))
        }
      })
    )

    it.effect("files over a megabyte, which their parsers read whole, keep the id of their bytes and their whole text", () =>
      Effect.gen(function* () {
        const dir = yield* Effect.promise(() => mkdtemp(path.join(os.tmpdir(), "quarry-large-")))
        const paragraph = "<p>quarry reads this file once</p>\n".repeat(50_000)
        const files = {
          "large.html": `<html><body>${paragraph}<p>last paragraph</p></body></html>`,
          "large.txt": `${"a line of text\n".repeat(100_000)}end`
        }
        for (const [name, text] of Object.entries(files)) {
          const file = path.join(dir, name)
          yield* Effect.promise(() => writeFile(file, text))
          const bytes = Buffer.from(text, "utf8")
          expect(bytes.byteLength).toBeGreaterThan(1024 ** 2)
          const document = yield* Effect.flatMap(Extractor, (extractor) => extractor.extract(file, options))
          expect(document.id).toBe(sha384(project, bytes))
          expect(document.duplicateId).toBe(sha384(bytes))
          expect(document.contentLength).toBe(bytes.byteLength)
          expect(document.content.endsWith(name === "large.html" ? "last paragraph" : "end")).toBe(true)
        }
        yield* Effect.promise(() => rm(dir, { recursive: true, force: true }))
      })
    )

    it.effect("zip members: levels by depth, parent the container, root the file on disk, ids from member bytes and names", () =>
      Effect.gen(function* () {
        const root = yield* extract("zip")
        expect(root.children.map((child) => child.metadata["tika_metadata_resourcename"])).toEqual(["inner/readme.txt", "nested.zip"])
        const readme = byName(root, "inner/readme.txt")
        const nested = byName(root, "nested.zip")
        const deep = byName(root, "deep.txt")
        const readmeBytes = Buffer.from(`${phrases.zipMember}\n`, "utf8")
        expect(readme?.id).toBe(sha384(sha384(project, readmeBytes), root.id, "inner/readme.txt"))
        expect(readme).toMatchObject({ extractionLevel: 1, parentDocument: root.id, rootDocument: root.id, path: root.path })
        expect(nested).toMatchObject({ extractionLevel: 1, parentDocument: root.id, rootDocument: root.id, contentType: "application/zip" })
        expect(deep).toMatchObject({ extractionLevel: 2, parentDocument: nested?.id, rootDocument: root.id, path: root.path })
        expect(deep?.content).toBe(phrases.nestedMember)
        const deepBytes = Buffer.from(`${phrases.nestedMember}\n`, "utf8")
        expect(deep?.id).toBe(sha384(sha384(project, deepBytes), nested?.id ?? "", "deep.txt"))
        expect(deep?.duplicateId).toBeUndefined()
      })
    )

    it.effect("email attachments are children of the email, named by their file name", () =>
      Effect.gen(function* () {
        const email = yield* extract("eml")
        expect(email.children).toHaveLength(1)
        const attachment = email.children[0]
        expect(attachment?.content).toBe(phrases.attachment)
        expect(attachment).toMatchObject({
          extractionLevel: 1,
          parentDocument: email.id,
          rootDocument: email.id,
          contentType: "text/plain"
        })
        expect(attachment?.metadata["tika_metadata_resourcename"]).toBe("contract-notes.txt")
        expect(attachment?.id).toBe(sha384(sha384(project, attachmentBytes), email.id, "contract-notes.txt"))
      })
    )

    it.effect("mbox messages are emails embedded in the mailbox, hashed without their From line, lines ending in LF", () =>
      Effect.gen(function* () {
        const mailbox = yield* extract("mbox")
        expect(mailbox.contentType).toBe("application/mbox")
        expect(mailbox.children.map((message) => message.content)).toEqual(phrases.mbox)
        expect(mailbox.children.map((message) => message.metadata["tika_metadata_subject"])).toEqual(["Ferry tender", "Port authority"])
        const text = (yield* bytesOf("mbox")).toString("utf8")
        const firstMessage = text.slice(text.indexOf("\n") + 1, text.indexOf("From dan@"))
        const first = mailbox.children[0]
        expect(first).toMatchObject({
          extractionLevel: 1,
          parentDocument: mailbox.id,
          rootDocument: mailbox.id,
          contentType: "message/rfc822"
        })
        expect(first?.id).toBe(sha384(sha384(project, firstMessage), mailbox.id))
      })
    )

    it.effect("a tar.gz holds the tar at level 1 and its files at level 2, all routed to the file on disk", () =>
      Effect.gen(function* () {
        const root = yield* extract("tarGz")
        const tar = root.children[0]
        expect(tar).toMatchObject({ contentType: "application/x-tar", extractionLevel: 1, rootDocument: root.id })
        expect(tar?.metadata["tika_metadata_resourcename"]).toBe("bundle.tar")
        expect(tar?.children.map((member) => member.content)).toEqual(phrases.tarMembers)
        for (const member of tar?.children ?? [])
          expect(member).toMatchObject({ extractionLevel: 2, parentDocument: tar?.id, rootDocument: root.id })
        expect(new Set(flatten(root).map((doc) => doc.id)).size).toBe(4)
      })
    )
  })
})
