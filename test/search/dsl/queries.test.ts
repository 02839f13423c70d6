import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { databaseKinds, postgresAvailable, postgresSkipReason } from "../../helpers/databases.ts"
import { corpusLayer, idSet, search } from "./corpus.ts"

/** Documents only: the corpus also holds named entities, which most document queries are not about. */
const documentsWhere = (...must: ReadonlyArray<unknown>) => ({ query: { bool: { must: [{ match: { type: "Document" } }, ...must] } } })
const queryString = (query: string, options: Record<string, unknown> = {}) => documentsWhere({ query_string: { query, ...options } })

for (const database of databaseKinds) {
  const skip = database === "postgres" && !postgresAvailable
  describe.skipIf(skip)(`search engine queries on ${database}${skip ? ` (skipped: ${postgresSkipReason})` : ""}`, () => {
    layer(corpusLayer(database), { timeout: 60_000 })((it) => {
      it.effect("match_all, an empty bool and a bool of must_not only follow ES's bool rules", () =>
        Effect.gen(function* () {
          expect((yield* search({ query: { match_all: {} } })).hits.total).toEqual({ value: 9, relation: "eq" })
          expect((yield* search({ query: { bool: {} } })).hits.total?.value).toBe(9)
          expect(yield* idSet({ query: { bool: { must_not: { match: { type: "NamedEntity" } } } } })).toEqual([
            "doc-attachment",
            "doc-fox",
            "doc-mail",
            "doc-notes",
            "doc-report"
          ])
          expect(
            yield* idSet({
              query: { bool: { filter: { term: { contentType: "application/pdf" } }, must_not: [{ term: { extractionLevel: 1 } }] } }
            })
          ).toEqual(["doc-report"])
        })
      )

      it.effect("should clauses are optional beside must/filter, required alone, and minimum_should_match counts them", () =>
        Effect.gen(function* () {
          const optional = yield* search({
            query: { bool: { must: [{ match: { type: "Document" } }], should: [{ match: { content: "fox" } }] } }
          })
          expect(optional.hits.total?.value).toBe(5)
          expect(optional.hits.hits[0]?._id).toBe("doc-fox")
          expect(
            yield* idSet({
              query: { bool: { must: [{ match: { type: "Document" } }], should: [{ match: { content: "fox" } }], minimum_should_match: 1 } }
            })
          ).toEqual(["doc-fox"])
          expect(yield* idSet({ query: { bool: { should: [{ match: { content: "fox" } }, { match: { content: "whales" } }] } } })).toEqual([
            "doc-fox",
            "doc-notes"
          ])
          const three = [{ match: { content: "brown" } }, { match: { content: "lazy" } }, { match: { content: "quick" } }]
          expect(yield* idSet({ query: { bool: { should: three, minimum_should_match: 2 } } })).toEqual(["doc-fox", "doc-notes"])
          expect(yield* idSet({ query: { bool: { should: three, minimum_should_match: "-1" } } })).toEqual(["doc-fox", "doc-notes"])
          expect(yield* idSet({ query: { bool: { should: three, minimum_should_match: "100%" } } })).toEqual(["doc-fox"])
          expect(yield* idSet({ query: { bool: { should: three, minimum_should_match: 4 } } })).toEqual([])
        })
      )

      it.effect("match analyses text fields (folded, OR or AND) and is an exact term elsewhere, _routing included", () =>
        Effect.gen(function* () {
          expect(yield* idSet({ query: { match: { content: "QUICK fox" } } })).toEqual(["doc-fox", "doc-mail"])
          expect(yield* idSet({ query: { match: { content: { query: "quick fox", operator: "and" } } } })).toEqual(["doc-fox"])
          expect(yield* idSet({ query: { match: { content: "cafe creme" } } })).toEqual(["doc-report"])
          expect(yield* idSet({ query: { match: { contentType: "application/pdf" } } })).toEqual(["doc-attachment", "doc-report"])
          expect(yield* idSet({ query: { match: { extractionLevel: "1" } } })).toEqual(["doc-attachment"])
          expect(yield* idSet(documentsWhere({ match: { _routing: "doc-mail" } }))).toEqual(["doc-attachment"])
          expect(yield* idSet({ query: { match: { _routing: "doc-mail" } } })).toEqual(["doc-attachment", "ne-icij", "ne-john", "ne-paris"])
        })
      )

      it.effect("term and terms: normalised tags, integers given as strings, _id, _index, the dirname tree, booleans as strings", () =>
        Effect.gen(function* () {
          expect(yield* idSet({ query: { terms: { tags: ["URGENT"] } } })).toEqual(["doc-fox", "doc-report"])
          expect(yield* idSet({ query: { term: { tags: "Review" } } })).toEqual(["doc-fox"])
          expect(yield* idSet({ query: { terms: { extractionLevel: ["0"] } } })).toEqual(["doc-fox", "doc-mail", "doc-notes", "doc-report"])
          expect(yield* idSet({ query: { term: { _id: "doc-notes" } } })).toEqual(["doc-notes"])
          expect((yield* search({ query: { terms: { _index: ["corpus-a"] } } })).hits.total?.value).toBe(9)
          expect(yield* idSet({ query: { term: { "dirname.tree": "/data/docs" } } })).toEqual(["doc-fox", "doc-notes", "doc-report"])
          expect(yield* idSet({ query: { term: { "dirname.tree": "/data" } } })).toEqual([
            "doc-attachment",
            "doc-fox",
            "doc-mail",
            "doc-notes",
            "doc-report"
          ])
          expect(yield* idSet({ query: { term: { isHidden: "false" } } })).toEqual(["ne-alice", "ne-john", "ne-paris"])
          expect(yield* idSet({ query: { term: { contentType: "Application/pdf" } } })).toEqual([])
          expect(yield* idSet({ query: { term: { nosuchfield: "x" } } })).toEqual([])
        })
      )

      it.effect("range on dates (ISO strings, epoch millis, dynamic metadata dates) and numbers; exists; ids", () =>
        Effect.gen(function* () {
          expect(yield* idSet({ query: { range: { extractionDate: { gte: "2024-02-01", lte: "2024-02-28T23:59:59.999Z" } } } })).toEqual([
            "doc-attachment",
            "doc-mail",
            "doc-report"
          ])
          expect(yield* idSet({ query: { range: { extractionDate: { lt: 1704067200000 } } } })).toEqual(["doc-notes"])
          expect(yield* idSet({ query: { range: { "metadata.tika_metadata_dcterms_created": { gte: "2021-01-01" } } } })).toEqual([
            "doc-mail",
            "doc-report"
          ])
          expect(yield* idSet({ query: { range: { contentLength: { gt: 300, lt: 2000 } } } })).toEqual(["doc-mail"])
          expect(yield* idSet({ query: { range: { contentLength: { gte: "300" } } } })).toEqual([
            "doc-attachment",
            "doc-mail",
            "doc-report"
          ])
          expect(yield* idSet({ query: { exists: { field: "metadata.tika_metadata_dcterms_created" } } })).toEqual([
            "doc-fox",
            "doc-mail",
            "doc-report"
          ])
          expect(
            yield* idSet({
              query: {
                bool: { must: { match: { type: "Document" } }, must_not: { exists: { field: "metadata.tika_metadata_dcterms_created" } } }
              }
            })
          ).toEqual(["doc-attachment", "doc-notes"])
          expect(yield* idSet({ query: { ids: { values: ["doc-fox", "nope", "ne-john"] } } })).toEqual(["doc-fox", "ne-john"])
        })
      )

      it.effect("wildcard (case-insensitive on request), regexp, fuzzy and prefix", () =>
        Effect.gen(function* () {
          expect(yield* idSet({ query: { wildcard: { dirname: { value: "*MAIL*", case_insensitive: true } } } })).toEqual([
            "doc-attachment",
            "doc-mail"
          ])
          expect(yield* idSet({ query: { wildcard: { dirname: { value: "*MAIL*" } } } })).toEqual([])
          expect(yield* idSet({ query: { wildcard: { path: "*.txt" } } })).toEqual(["doc-fox", "doc-notes"])
          expect(yield* idSet({ query: { regexp: { contentType: "message/.*" } } })).toEqual(["doc-mail"])
          expect(yield* idSet({ query: { regexp: { contentType: "(text|message)/[a-z]+" } } })).toEqual(["doc-fox", "doc-notes"])
          expect(yield* idSet({ query: { fuzzy: { content: { value: "quikc", fuzziness: 1 } } } })).toEqual(["doc-fox", "doc-mail"])
          expect(yield* idSet({ query: { fuzzy: { mentionNorm: "jon doe" } } })).toEqual(["ne-john"])
          expect(yield* idSet({ query: { fuzzy: { content: "" } } })).toEqual([])
          expect(yield* idSet({ query: { prefix: { path: "/data/docs/s" } } })).toEqual(["doc-notes"])
          // A trailing star on a keyword: a range of byte order, each bound included or not as the prefix needs.
          expect(yield* idSet({ query: { wildcard: { path: "/data/docs/*" } } })).toEqual(["doc-fox", "doc-notes", "doc-report"])
          expect(yield* idSet({ query: { wildcard: { path: "/data/mail/2023/message.eml*" } } })).toEqual(["doc-attachment", "doc-mail"])
          expect(yield* idSet({ query: { wildcard: { path: "/data/docs/sub/notes.txu*" } } })).toEqual([])
        })
      )

      it.effect("query_string: default fields, fielded values, phrases, proximity, fuzzy, wildcards, ranges, _exists_", () =>
        Effect.gen(function* () {
          expect(yield* idSet(queryString("fox"))).toEqual(["doc-fox"])
          expect(yield* idSet(queryString("pdf"))).toEqual(["doc-report"])
          expect(yield* idSet(queryString('contentType:"application/pdf"'))).toEqual(["doc-attachment", "doc-report"])
          expect(yield* idSet(queryString('"quick brown"'))).toEqual(["doc-fox"])
          expect(yield* idSet(queryString('"brown quick"'))).toEqual([])
          expect(yield* idSet(queryString('"quick fox"'))).toEqual([])
          expect(yield* idSet(queryString('"quick fox"~1'))).toEqual(["doc-fox"])
          expect(yield* idSet(queryString("quikc~"))).toEqual(["doc-fox", "doc-mail"])
          expect(yield* idSet(queryString("qui*"))).toEqual(["doc-fox", "doc-mail"])
          expect(yield* idSet(queryString("?ox"))).toEqual(["doc-fox"])
          expect(yield* idSet(queryString("*ales"))).toEqual(["doc-notes"])
          expect(yield* idSet(queryString("/fo[xy]/"))).toEqual(["doc-fox"])
          expect(yield* idSet(queryString("extractionLevel:[1 TO *]"))).toEqual(["doc-attachment"])
          expect(yield* idSet(queryString("extractionDate:{* TO 2024-01-01}"))).toEqual(["doc-notes"])
          expect(yield* idSet(queryString("contentLength:>=500"))).toEqual(["doc-mail", "doc-report"])
          expect(yield* idSet(queryString("_exists_:metadata.tika_metadata_dc_title"))).toEqual(["doc-mail"])
          expect(yield* idSet(queryString("path:\\/data\\/docs\\/fox.txt"))).toEqual(["doc-fox"])
          expect(yield* idSet(queryString('metadata.tika_metadata_dc_creator.keyword:"Alice Martin"'))).toEqual(["doc-fox"])
          expect(yield* idSet(queryString("metadata.tika_metadata_dc_creator:alice"))).toEqual(["doc-fox"])
          expect(yield* idSet(queryString("tags:urgent"))).toEqual(["doc-fox", "doc-report"])
          expect(yield* idSet(queryString("type:Document AND extractionLevel:0"))).toEqual([
            "doc-fox",
            "doc-mail",
            "doc-notes",
            "doc-report"
          ])
          expect((yield* search({ query: { query_string: { query: "*" } } })).hits.total?.value).toBe(9)
        })
      )

      it.effect("query_string operators: AND, OR, NOT, +, -, grouping, default_operator and keyword chunks", () =>
        Effect.gen(function* () {
          expect(yield* idSet(queryString("lazy AND brown"))).toEqual(["doc-fox", "doc-notes"])
          expect(yield* idSet(queryString("lazy AND NOT dog"))).toEqual(["doc-notes"])
          expect(yield* idSet(queryString("+lazy -dog"))).toEqual(["doc-notes"])
          expect(yield* idSet(queryString("lazy OR merger"))).toEqual(["doc-attachment", "doc-fox", "doc-mail", "doc-notes"])
          expect(yield* idSet(queryString("(fox OR whales) AND brown"))).toEqual(["doc-fox", "doc-notes"])
          expect(yield* idSet(queryString("merger -attachment"))).toEqual(["doc-mail"])
          expect(yield* idSet(queryString("-fox"))).toEqual(["doc-attachment", "doc-mail", "doc-notes", "doc-report"])
          expect(yield* idSet(queryString("quick merger", { default_operator: "AND" }))).toEqual(["doc-mail"])
          expect(yield* idSet(queryString("quick merger", { default_operator: "OR" }))).toEqual(["doc-attachment", "doc-fox", "doc-mail"])
          expect(yield* idSet({ query: { query_string: { default_field: "mentionNorm", query: "(john doe)" } } })).toEqual(["ne-john"])
          expect(yield* idSet({ query: { query_string: { fields: ["mentionNorm", "mention"], query: "*o*" } } })).toEqual(["ne-john"])
          expect(yield* idSet({ query: { query_string: { fields: ["content^2", "path"], query: "whales" } } })).toEqual(["doc-notes"])
          expect(yield* idSet({ query: { multi_match: { query: "Merger meeting", fields: ["title^3", "content"] } } })).toEqual([
            "doc-attachment",
            "doc-mail"
          ])
        })
      )

      it.effect("has_child, has_parent and parent_id join documents and their named entities", () =>
        Effect.gen(function* () {
          const person = (mention: string) => ({
            has_child: {
              type: "NamedEntity",
              query: {
                bool: {
                  must: [
                    { query_string: { default_field: "mentionNorm", query: `(${mention})` } },
                    { query_string: { default_field: "category", query: "PERSON" } }
                  ]
                }
              }
            }
          })
          expect(yield* idSet(documentsWhere(person("john doe")))).toEqual(["doc-mail"])
          expect(yield* idSet(documentsWhere({ has_child: { type: "NamedEntity", query: { term: { category: "PERSON" } } } }))).toEqual([
            "doc-fox",
            "doc-mail"
          ])
          expect(yield* idSet(documentsWhere({ has_child: { type: "NamedEntity", query: { term: { category: "LOCATION" } } } }))).toEqual([
            "doc-attachment"
          ])
          expect(yield* idSet(documentsWhere({ has_child: { type: "Duplicate", query: { match_all: {} } } }))).toEqual([])
          const entityFacet = {
            bool: {
              must: [
                { term: { type: "NamedEntity" } },
                { has_parent: { parent_type: "Document", query: { term: { contentType: "message/rfc822" } } } }
              ]
            }
          }
          expect(yield* idSet({ query: entityFacet })).toEqual(["ne-icij", "ne-john"])
          expect(yield* idSet({ query: { parent_id: { type: "NamedEntity", id: "doc-mail" } } })).toEqual(["ne-icij", "ne-john"])
          const visiblePersons = {
            bool: {
              filter: { bool: { must: [{ term: { isHidden: "false" } }, { term: { category: "PERSON" } }] } },
              must: [{ parent_id: { type: "NamedEntity", id: "doc-mail" } }]
            }
          }
          expect(yield* idSet({ query: visiblePersons })).toEqual(["ne-john"])
        })
      )

      it.effect("several indices are searched together; another project's records stay apart", () =>
        Effect.gen(function* () {
          expect(yield* idSet({ query: { match: { content: "quick" } } }, { path: "corpus-a,corpus-b/_search" })).toEqual([
            "doc-fox",
            "doc-mail",
            "doc-other"
          ])
          expect(yield* idSet({ query: { match: { content: "quick" } } }, { path: "corpus-b/_search" })).toEqual(["doc-other"])
          expect((yield* search({}, { path: "empty-project/_search" })).hits.total?.value).toBe(0)
        })
      )
    })
  })
}
