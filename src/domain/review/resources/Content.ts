import { Effect } from "effect"
import type { ResourceDefinition, Row, ToMany } from "./Resource.ts"
import { relationExact, textExact } from "./Filters.ts"

/** (owner, id) pairs of a child table by its owner column, children in id order. */
export const childPairs =
  (table: string, ownerColumn: string): ToMany["pairs"] =>
  ({ sql }, ownerIds) =>
    sql<{ owner: number; id: number }>`
    SELECT ${sql.literal(ownerColumn)} AS owner, id FROM ${sql.literal(table)}
    WHERE ${sql.literal(ownerColumn)} = ANY(${ownerIds}::int[]) ORDER BY id`.pipe(Effect.map((rows) => rows))

export const projectDefinition: ResourceDefinition = {
  key: "Project",
  type: "Project",
  selfPath: "projects",
  from: "review_projects r",
  columns: ({ sql }) => sql.literal(`r.id, r.name, r.creator_id AS "creatorId"`),
  attributes: (row: Row) => ({ name: row.name }),
  toOne: { creator: { resource: "User", id: (row) => row.creatorId as number | null } },
  includable: ["creator"],
  filters: { name: textExact("r.name") },
  sorts: { name: "r.name" },
  search: ["r.name"],
  defaultOrder: "r.id DESC",
  paginated: false
}

export const choiceGroupDefinition: ResourceDefinition = {
  key: "ChoiceGroup",
  type: "ChoiceGroup",
  selfPath: "choice-groups",
  from: "review_choice_groups r",
  columns: ({ sql }) => sql.literal(`r.id, r.name`),
  attributes: (row: Row) => ({ name: row.name }),
  toMany: {
    alternativeValues: { resource: "AlternativeValue", pairs: childPairs("review_alternative_values", "choice_group_id") },
    choices: { resource: "Choice", pairs: childPairs("review_choices", "choice_group_id") }
  },
  defaultInclude: ["choices"],
  includable: ["choices", "alternativeValues"],
  sorts: { id: "r.id", name: "r.name" },
  defaultOrder: "r.id DESC",
  paginated: true
}

/** Choices have no back-reference to their group in documents; lists filter by it. */
export const choiceDefinition: ResourceDefinition = {
  key: "Choice",
  type: "Choice",
  from: "review_choices r",
  columns: ({ sql }) =>
    sql.literal(`r.id, r.name, r.value, r.shortkeys, r.require_alternative_value AS "requireAlternativeValue", r.color`),
  attributes: (row: Row) => ({
    name: row.name,
    value: row.value,
    shortkeys: row.shortkeys,
    requireAlternativeValue: row.requireAlternativeValue,
    color: row.color
  }),
  filters: { choice_group: relationExact("r.choice_group_id", "review_choice_groups", "choiceGroup") },
  sorts: { id: "r.id", name: "r.name", value: "r.value" },
  defaultOrder: "r.id",
  paginated: true
}

export const alternativeValueDefinition: ResourceDefinition = {
  key: "AlternativeValue",
  type: "AlternativeValue",
  from: "review_alternative_values r",
  columns: ({ sql }) => sql.literal(`r.id, r.name, r.value`),
  attributes: (row: Row) => ({ name: row.name, value: row.value }),
  filters: { choice_group: relationExact("r.choice_group_id", "review_choice_groups", "choiceGroup") },
  sorts: { id: "r.id", name: "r.name", value: "r.value" },
  defaultOrder: "r.id",
  paginated: true
}
