import { describe, expect, it } from "vitest"
import type { SourceFilter } from "../../../src/search/postgres/dsl/Ast.ts"
import { filterSource } from "../../../src/search/postgres/dsl/Source.ts"

/** `_source` filtering: the client's filter (every field but the content) and globs that reach inside objects. */

const source = {
  path: "/data/a.txt",
  content: "the text",
  content_translated: [],
  metadata: { tika_metadata_title: "A title", content: "kept: a nested field of the same name" },
  tags: ["one", "two"],
  join: { name: "Document" },
  empty: {},
  nothing: null
}

const filter = (includes: ReadonlyArray<string>, excludes: ReadonlyArray<string>): SourceFilter => ({ _tag: "Filter", includes, excludes })

describe("filterSource", () => {
  it("keeps every field but the top-level ones the client excludes, nested fields of the same name included", () => {
    const { content: _content, content_translated: _translated, ...rest } = source
    expect(filterSource(source, filter(["*"], ["content", "content_translated"]))).toEqual(rest)
    expect(filterSource(source, filter([], ["content", "content_translated"]))).toEqual(rest)
  })

  it("excludes and includes nested fields through their dotted paths and wildcards", () => {
    expect(filterSource(source, filter(["*"], ["metadata.content", "content*"]))).toEqual({
      path: source.path,
      metadata: { tika_metadata_title: "A title" },
      tags: source.tags,
      join: source.join,
      empty: {},
      nothing: null
    })
    expect(filterSource(source, filter(["metadata.tika*", "path"], []))).toEqual({
      path: source.path,
      metadata: { tika_metadata_title: "A title" }
    })
    expect(filterSource(source, filter(["*.name"], ["join"]))).toEqual({})
  })
})
