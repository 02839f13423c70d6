import { Effect } from "effect"
import { type ReviewTable, rowExists } from "../../domain/review/ReviewRows.ts"
import { badRequest, conflict, JsonApiError } from "./JsonApiError.ts"
import { toCamel } from "./Names.ts"
import type { Linkage, RequestDocument } from "./Document.ts"
import { type AttributeRule, checkAttributes, ValidationFailed } from "./Validation.ts"

/** A to-one relationship a request may set: its JSON:API type, the table its ids live in, the column it fills. */
export interface RelationRule {
  readonly type: string
  readonly table: ReviewTable
  readonly column: string
  readonly required?: boolean
}

/** A to-many relationship: the ids are checked against `table` and returned for the caller to store. */
export interface ManyRelationRule {
  readonly type: string
  readonly table: ReviewTable
}

export interface WriteRules {
  readonly attributes: Readonly<Record<string, AttributeRule>>
  readonly toOne?: Readonly<Record<string, RelationRule>>
  readonly toMany?: Readonly<Record<string, ManyRelationRule>>
}

/** What a valid request asks to write: column values and to-many id lists, by snake_case name. */
export interface CheckedWrite {
  readonly columns: Readonly<Record<string, unknown>>
  readonly many: Readonly<Record<string, ReadonlyArray<number>>>
}

const relationError = (name: string, detail: string, code: string) =>
  new JsonApiError({ status: 400, detail, pointer: `/data/relationships/${toCamel(name)}`, code })

const checkIdentifier = (name: string, rule: { type: string; table: ReviewTable }, identifier: { type: string; id: string }) =>
  Effect.gen(function* () {
    if (identifier.type !== rule.type)
      return yield* conflict(`Incorrect relation type. Expected ${rule.type}, received ${identifier.type}.`)
    const missing = relationError(name, `Invalid pk "${identifier.id}" - object does not exist.`, "does_not_exist")
    if (!/^\d{1,9}$/.test(identifier.id)) return yield* missing
    if (!(yield* rowExists(rule.table, Number(identifier.id)))) return yield* missing
    return Number(identifier.id)
  })

const isList = (linkage: Linkage): linkage is ReadonlyArray<{ type: string; id: string }> => Array.isArray(linkage)

const isSingle = (linkage: Linkage): linkage is { type: string; id: string } => linkage !== null && !Array.isArray(linkage)

/**
 * Checks a request document against the rules: attribute types and lengths, relationship types (409 when
 * wrong) and ids (400 when unknown), required fields on creation. All attribute errors are reported together.
 */
export const checkWrite = (document: RequestDocument, rules: WriteRules, creating: boolean) =>
  Effect.gen(function* () {
    const { values, errors } = checkAttributes(document.attributes, rules.attributes, creating)
    const columns: Record<string, unknown> = { ...values }
    const problems = [...errors]
    for (const [name, rule] of Object.entries(rules.toOne ?? {})) {
      const linkage = document.relationships[name]
      if (linkage === undefined) {
        if (creating && rule.required === true) problems.push(relationError(name, "This field is required.", "required"))
        continue
      }
      if (linkage === null) {
        if (rule.required === true) problems.push(relationError(name, "This field may not be null.", "null"))
        else columns[rule.column] = null
        continue
      }
      if (!isSingle(linkage)) {
        problems.push(relationError(name, "Expected a single resource identifier, received a list.", "invalid"))
        continue
      }
      columns[rule.column] = yield* checkIdentifier(name, rule, linkage)
    }
    const many: Record<string, ReadonlyArray<number>> = {}
    for (const [name, rule] of Object.entries(rules.toMany ?? {})) {
      const linkage = document.relationships[name]
      if (linkage === undefined) continue
      if (linkage === null || !isList(linkage)) {
        problems.push(relationError(name, "Expected a list of resource identifiers.", "invalid"))
        continue
      }
      many[name] = yield* Effect.forEach(linkage, (identifier) => checkIdentifier(name, rule, identifier))
    }
    if (problems.length > 0) return yield* new ValidationFailed({ errors: problems })
    return { columns, many } satisfies CheckedWrite
  })

/** The row id of a detail URL, or 404 "No <Model> matches the given query." */
export const existingId = (table: ReviewTable, model: string, id: string) =>
  Effect.gen(function* () {
    const missing = new JsonApiError({ status: 404, detail: `No ${model} matches the given query.`, pointer: null, code: "not_found" })
    if (!/^\d{1,9}$/.test(id)) return yield* missing
    return (yield* rowExists(table, Number(id))) ? Number(id) : yield* missing
  })

export const attributeInvalid = (name: string, detail: string) => badRequest(detail, `/data/attributes/${toCamel(name)}`)
