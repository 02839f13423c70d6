import { describe, expect, it } from "@effect/vitest"
import { documentSearch, filtersOf, plainWords, queryOf } from "../../src/web/searchQuery.ts"

describe("the search page's request bodies", () => {
  it("keeps every filter in the page address and reads it back unchanged", () => {
    const query = new URLSearchParams(
      "q=annual+report&from=20&contentType=application%2Fpdf&tags=evidence&tags=urgent&path=%2Fdata%2Fdocs&starred=1&PERSON=jane+doe"
    )
    const filters = filtersOf(query)
    expect(filters).toMatchObject({ q: "annual report", from: 20, path: "/data/docs", starred: true })
    expect(filters.terms).toEqual({ contentType: ["application/pdf"], language: [], tags: ["evidence", "urgent"] })
    expect(filtersOf(queryOf(filters))).toEqual(filters)
  })

  it("sends the filters in the reference client's shapes, with the folder facet listing direct subfolders", () => {
    const filters = filtersOf(new URLSearchParams("q=ferry&tags=evidence&path=%2Fdata%2Fdocs%2F&starred=1&EMAIL=alice%40example.org"))
    const body = documentSearch(filters, ["doc-1"], "/data")
    expect(body.query.bool.must[0]).toEqual({ query_string: { query: "ferry", default_operator: "AND" } })
    expect(body.query.bool.filter).toEqual([
      { terms: { tags: ["evidence"] } },
      { term: { "dirname.tree": "/data/docs" } },
      { terms: { _id: ["doc-1"] } },
      {
        has_child: {
          type: "NamedEntity",
          query: {
            bool: {
              must: [
                { query_string: { default_field: "mentionNorm", query: '("alice@example.org")' } },
                { query_string: { default_field: "category", query: "EMAIL" } }
              ]
            }
          }
        }
      }
    ])
    expect(body.aggs.dirname.terms).toMatchObject({ field: "dirname.tree", include: "/data/docs/.*", exclude: "/data/docs/.*/.*" })
    expect(documentSearch(filtersOf(new URLSearchParams()), [], "/data").query.bool.must[0]).toEqual({
      query_string: { query: "*", default_operator: "AND" }
    })
  })

  it("finds in a document the words of a Lucene query, without its field clauses, operators and syntax", () => {
    expect(plainWords('"offshore company" AND contentType:"text/plain"')).toBe("offshore company")
    expect(plainWords("(harbour~2 OR port*) NOT title:draft")).toBe("harbour port")
  })
})
