import { HttpApiSchema } from "@effect/platform"
import { Either, Schema } from "effect"
import { LegacyUser } from "../user/User.ts"

export const eventTypes = ["DOCUMENT", "SEARCH"] as const
export type EventType = (typeof eventTypes)[number]

/** The event PUT /api/users/me/history receives (type in upper case, as the reference requires). */
export const HistoryEventInput = Schema.Struct({
  type: Schema.Literal(...eventTypes),
  projectIds: Schema.Array(Schema.String),
  name: Schema.optional(Schema.NullOr(Schema.String)),
  uri: Schema.String
}).annotations({ identifier: "HistoryEventInput" })
export type HistoryEventInput = typeof HistoryEventInput.Type

/** An event as GET /api/users/me/history lists it; its projects are not shown. */
export const LegacyHistoryEvent = Schema.Struct({
  id: Schema.Number,
  user: LegacyUser,
  creationDate: Schema.String,
  modificationDate: Schema.String,
  type: Schema.Literal(...eventTypes),
  name: Schema.NullOr(Schema.String),
  uri: Schema.String
}).annotations({ identifier: "HistoryEvent" })

export const HistoryList = Schema.Struct({ items: Schema.Array(LegacyHistoryEvent), total: Schema.Number }).annotations({
  identifier: "HistoryList"
})
export type HistoryList = typeof HistoryList.Type

/** Columns a list may be sorted by, under both the seed's camelCase names and the reference's column names. */
export const sortColumns: Readonly<Record<string, string>> = {
  modificationDate: "modification_date",
  modification_date: "modification_date",
  creationDate: "creation_date",
  creation_date: "creation_date",
  name: "name",
  uri: "uri",
  id: "id",
  type: "type",
  userId: "user_id",
  user_id: "user_id"
}

export interface HistoryQuery {
  readonly type: EventType
  readonly from: number
  /** 0 lists every event from `from`. */
  readonly size: number
  readonly sortColumn: string
  readonly descending: boolean
  readonly projects: ReadonlyArray<string>
}

/** A history request that cannot be answered (unknown type or sort, a negative or non-integer from/size, a bad id). */
export class InvalidHistoryRequest extends Schema.TaggedError<InvalidHistoryRequest>()(
  "InvalidHistoryRequest",
  { reason: Schema.String },
  HttpApiSchema.annotations({ status: 400 })
) {
  override get message() {
    return this.reason
  }
}

const invalid = (reason: string) => Either.left(new InvalidHistoryRequest({ reason }))

/** `document` or `search`, in any case. */
export const parseType = (value: string | undefined): Either.Either<EventType, InvalidHistoryRequest> => {
  const type = (value ?? "").toUpperCase()
  return type === "DOCUMENT" || type === "SEARCH" ? Either.right(type) : invalid("type must be document or search")
}

const count = (name: string, value: string | undefined) =>
  value === undefined || value === ""
    ? Either.right(0)
    : /^\d{1,9}$/.test(value)
      ? Either.right(Number(value))
      : invalid(`${name} must be a non-negative integer`)

export const parseHistoryQuery = (parameters: Readonly<Record<string, string | undefined>>) =>
  Either.gen(function* () {
    const sortColumn = sortColumns[parameters.sort ?? "modificationDate"]
    if (sortColumn === undefined) return yield* invalid(`sort must be one of ${Object.keys(sortColumns).join(", ")}`)
    return {
      type: yield* parseType(parameters.type),
      from: yield* count("from", parameters.from),
      size: yield* count("size", parameters.size),
      sortColumn,
      descending: (parameters.desc ?? "").toLowerCase() !== "false",
      projects: (parameters.projects ?? "").split(",").filter((project) => project !== "")
    } satisfies HistoryQuery
  })

/** The id of DELETE /api/users/me/history/event. */
export const parseEventId = (value: string | undefined) =>
  /^\d{1,9}$/.test(value ?? "") ? Either.right(Number(value)) : invalid("id must be a non-negative integer")
