import { HttpApiSchema } from "@effect/platform"
import { Schema } from "effect"
import { JsonApiError } from "./JsonApiError.ts"
import { toCamel } from "./Names.ts"

/** Several field errors at once (400), each with its own pointer. */
export class ValidationFailed extends Schema.TaggedError<ValidationFailed>()(
  "ValidationFailed",
  { errors: Schema.Array(Schema.instanceOf(JsonApiError)) },
  HttpApiSchema.annotations({ status: 400 })
) {
  override get message() {
    return this.errors.map((error) => error.detail).join("; ")
  }
}

export type AttributeRule =
  | { readonly kind: "string"; readonly max?: number; readonly required?: boolean; readonly nullable?: boolean }
  | { readonly kind: "boolean" }
  | { readonly kind: "integer"; readonly min?: number; readonly nullable?: boolean }
  | { readonly kind: "float"; readonly nullable?: boolean }
  | { readonly kind: "choice"; readonly values: ReadonlyArray<string> }
  | { readonly kind: "json" }

const attributeError = (name: string, detail: string, code: string) =>
  new JsonApiError({ status: 400, detail, pointer: `/data/attributes/${toCamel(name)}`, code })

const checkValue = (name: string, rule: AttributeRule, value: unknown): JsonApiError | undefined => {
  if (value === null) {
    return rule.kind === "json" || ("nullable" in rule && rule.nullable === true)
      ? undefined
      : attributeError(name, "This field may not be null.", "null")
  }
  switch (rule.kind) {
    case "string":
      if (typeof value !== "string") return attributeError(name, "Not a valid string.", "invalid")
      if (rule.required === true && value.trim() === "") return attributeError(name, "This field may not be blank.", "blank")
      if (rule.max !== undefined && value.length > rule.max)
        return attributeError(name, `Ensure this field has no more than ${rule.max} characters.`, "max_length")
      return undefined
    case "boolean":
      return typeof value === "boolean" ? undefined : attributeError(name, "Must be a valid boolean.", "invalid")
    case "integer":
      if (typeof value !== "number" || !Number.isInteger(value)) return attributeError(name, "A valid integer is required.", "invalid")
      return rule.min !== undefined && value < rule.min
        ? attributeError(name, `Ensure this value is greater than or equal to ${rule.min}.`, "min_value")
        : undefined
    case "float":
      return typeof value === "number" && Number.isFinite(value)
        ? undefined
        : attributeError(name, "A valid number is required.", "invalid")
    case "choice":
      return typeof value === "string" && rule.values.includes(value)
        ? undefined
        : attributeError(name, `"${String(value)}" is not a valid choice.`, "invalid_choice")
    case "json":
      return undefined
  }
}

/**
 * Checks the attributes a request sends against the rules of the resource; unknown attributes are ignored as
 * the reference's serializers do. `creating` makes required strings mandatory. Returns the accepted values by
 * snake_case name, or every error found.
 */
export const checkAttributes = (
  attributes: Readonly<Record<string, unknown>>,
  rules: Readonly<Record<string, AttributeRule>>,
  creating: boolean
): { readonly values: Readonly<Record<string, unknown>>; readonly errors: ReadonlyArray<JsonApiError> } => {
  const values: Record<string, unknown> = {}
  const errors: Array<JsonApiError> = []
  for (const [name, rule] of Object.entries(rules)) {
    if (!(name in attributes)) {
      if (creating && rule.kind === "string" && rule.required === true)
        errors.push(attributeError(name, "This field is required.", "required"))
      continue
    }
    const error = checkValue(name, rule, attributes[name])
    if (error === undefined) values[name] = attributes[name]
    else errors.push(error)
  }
  return { values, errors }
}
