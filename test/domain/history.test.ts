import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import { parseEventId, parseHistoryQuery, sortColumns } from "../../src/domain/history/History.ts"

describe("history requests", () => {
  it("default to every event, newest modification first, without a project filter", () => {
    expect(parseHistoryQuery({ type: "Search" })).toEqual(
      Either.right({ type: "SEARCH", from: 0, size: 0, sortColumn: "modification_date", descending: true, projects: [] })
    )
  })

  it("accept the seed's camelCase sort names and the reference's column names alike", () => {
    for (const [camel, column] of [
      ["modificationDate", "modification_date"],
      ["creationDate", "creation_date"],
      ["userId", "user_id"]
    ] as const) {
      expect(sortColumns[camel]).toBe(column)
      expect(sortColumns[column]).toBe(column)
    }
    const parsed = parseHistoryQuery({ type: "document", sort: "creationDate", desc: "False", from: "2", size: "5", projects: "a,,b" })
    expect(parsed).toEqual(
      Either.right({ type: "DOCUMENT", from: 2, size: 5, sortColumn: "creation_date", descending: false, projects: ["a", "b"] })
    )
  })

  it("refuse unknown types and sorts, negative or fractional bounds, and ids that are not integers", () => {
    for (const parameters of [
      {},
      { type: "folder" },
      { type: "search", sort: "password_hash" },
      { type: "search", from: "-1" },
      { type: "search", size: "1e3" }
    ]) {
      expect(Either.isLeft(parseHistoryQuery(parameters))).toBe(true)
    }
    expect(parseEventId("42")).toEqual(Either.right(42))
    for (const id of [undefined, "", "x", "-3", "1.5"]) expect(Either.isLeft(parseEventId(id))).toBe(true)
  })
})
