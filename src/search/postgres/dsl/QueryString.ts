import { Effect } from "effect"
import { bool, matchAll, matchNone, type Query } from "./Ast.ts"
import { type SearchRequestError, unsupported } from "./Errors.ts"
import { defaultFields } from "./Fields.ts"
import { queryShardError, translateRegexp } from "./Patterns.ts"
import { type Token, tokenize } from "./QueryStringTokens.ts"

/**
 * `query_string`: the Lucene classic syntax users type, parsed into query nodes.
 * Clauses take `+`/`-`/`NOT` and `AND`/`OR` exactly as Lucene's parser combines them; consecutive bare words form
 * one chunk analysed by each target field (whitespace is not an operator), so `john doe` on a keyword field is the
 * single term `john doe` and on a text field its words joined by `default_operator`.
 */

export interface QueryStringOptions {
  readonly query: string
  readonly fields: ReadonlyArray<string> | undefined
  readonly defaultOperator: "and" | "or"
}

type Conjunction = "none" | "and" | "or"
type Modifier = "none" | "required" | "prohibited"
type Occur = "must" | "should" | "mustNot"

/** One parsed clause before it is turned into queries: the target field and what was typed. */
type Clause =
  | { readonly _tag: "Group"; readonly field: string | undefined; readonly query: Query }
  | { readonly _tag: "Chunk"; readonly field: string | undefined; readonly words: ReadonlyArray<Extract<Token, { _tag: "Word" }>> }
  | { readonly _tag: "Single"; readonly field: string | undefined; readonly token: Token }

const isPlainWord = (token: Token | undefined): token is Extract<Token, { _tag: "Word" }> =>
  token !== undefined && token._tag === "Word" && token.fuzzy === undefined && !/(^|[^\\])[*?]/.test(token.raw)

export const parseQueryString = (options: QueryStringOptions): Effect.Effect<Query, SearchRequestError> =>
  Effect.gen(function* () {
    const fail = (reason: string) => queryShardError(`Failed to parse query [${options.query}]: ${reason}`)
    const tokens = yield* tokenize(options.query, fail)
    let position = 0
    const targets = (field: string | undefined) => (field === undefined ? (options.fields ?? defaultFields) : [field])
    const anyField = (field: string | undefined, make: (field: string) => Query): Query => {
      const fields = targets(field)
      return fields.length === 1 ? make(fields[0]!) : bool({ should: fields.map(make) })
    }

    const leaf = (clause: Clause): Effect.Effect<Query, SearchRequestError> =>
      Effect.gen(function* () {
        if (clause._tag === "Group") return clause.query
        if (clause.field !== undefined && /[*?]/.test(clause.field) && clause.field !== "_exists_")
          return yield* unsupportedField(clause.field)
        if (clause._tag === "Chunk") {
          const text = clause.words.map((word) => word.text).join(" ")
          return anyField(clause.field, (field) => ({ _tag: "Match", field, text, operator: options.defaultOperator }))
        }
        const token = clause.token
        switch (token._tag) {
          case "Word": {
            if (clause.field === "_exists_") return { _tag: "Exists", field: token.text }
            if (token.raw === "*") return clause.field === undefined ? matchAll : { _tag: "Exists", field: clause.field }
            if (token.fuzzy !== undefined) {
              const distance = token.fuzzy < 0 ? autoFuzziness(token.text) : Math.min(2, Math.max(0, Math.floor(token.fuzzy)))
              return anyField(clause.field, (field) => ({ _tag: "Fuzzy", field, value: token.text, distance }))
            }
            return anyField(clause.field, (field) => ({ _tag: "Wildcard", field, pattern: token.raw, caseInsensitive: false }))
          }
          case "Phrase":
            return anyField(clause.field, (field) => ({ _tag: "Phrase", field, text: token.text, slop: token.slop }))
          case "Range": {
            const bound = (value: string) => (value === "*" ? undefined : value)
            return anyField(clause.field, (field) => ({
              _tag: "Range",
              field,
              ...(token.includeFrom ? { gte: bound(token.from) } : { gt: bound(token.from) }),
              ...(token.includeTo ? { lte: bound(token.to) } : { lt: bound(token.to) })
            }))
          }
          case "Regexp": {
            const pattern = yield* translateRegexp(token.pattern)
            return anyField(clause.field, (field) => ({ _tag: "Regexp", field, pattern, caseInsensitive: false }))
          }
          default:
            return yield* fail("unexpected operator")
        }
      })

    const parseClause = (field: string | undefined): Effect.Effect<Clause, SearchRequestError> =>
      Effect.gen(function* () {
        const token = tokens[position]
        if (token === undefined) return yield* fail("a clause is missing at the end")
        if (token._tag === "Field") {
          if (field !== undefined) return yield* fail(`field [${token.name}] inside field [${field}]`)
          position++
          return yield* parseClause(token.name)
        }
        if (token._tag === "Comparison") {
          const value = tokens[position + 1]
          if (value === undefined || (value._tag !== "Word" && value._tag !== "Phrase"))
            return yield* fail("a value must follow a comparison")
          position += 2
          const bound = value.text
          const key = { ">": "gt", ">=": "gte", "<": "lt", "<=": "lte" }[token.operator]
          const query = anyField(field, (target) => ({ _tag: "Range", field: target, [key]: bound }) as Query)
          return { _tag: "Group", field, query }
        }
        if (token._tag === "Open") {
          position++
          const query = yield* parseBoolean(field, true)
          return { _tag: "Group", field: undefined, query }
        }
        if (isPlainWord(token) && field !== "_exists_") {
          const words = [token]
          position++
          // Following bare words without operators join the chunk (Lucene's multi-term rule).
          while (isPlainWord(tokens[position]) && tokens[position + 1]?._tag !== "Field" && tokens[position]) {
            words.push(tokens[position] as Extract<Token, { _tag: "Word" }>)
            position++
          }
          return { _tag: "Chunk", field, words }
        }
        if (token._tag === "Word" || token._tag === "Phrase" || token._tag === "Range" || token._tag === "Regexp") {
          position++
          return { _tag: "Single", field, token }
        }
        return yield* fail(`unexpected ${token._tag.toLowerCase()}`)
      })

    const parseBoolean = (field: string | undefined, nested: boolean): Effect.Effect<Query, SearchRequestError> =>
      Effect.gen(function* () {
        const clauses: Array<{ occur: Occur; query: Query }> = []
        while (position < tokens.length) {
          if (tokens[position]!._tag === "Close") {
            if (!nested) return yield* fail("unbalanced closing parenthesis")
            break
          }
          let conjunction: Conjunction = "none"
          const conjunctionToken = tokens[position]!
          if (conjunctionToken._tag === "And" || conjunctionToken._tag === "Or") {
            if (clauses.length === 0) return yield* fail(`a query cannot start with ${conjunctionToken._tag.toUpperCase()}`)
            conjunction = conjunctionToken._tag === "And" ? "and" : "or"
            position++
          }
          let modifier: Modifier = "none"
          const modifierToken = tokens[position]
          if (modifierToken?._tag === "Plus") modifier = "required"
          if (modifierToken?._tag === "Minus" || modifierToken?._tag === "Not") modifier = "prohibited"
          if (modifier !== "none") position++
          const clause = yield* parseClause(field)
          const query = yield* leaf(clause.field === undefined && field !== undefined ? { ...clause, field } : clause)
          addClause(clauses, conjunction, modifier, query, options.defaultOperator)
        }
        if (nested) {
          if (tokens[position]?._tag !== "Close") return yield* fail("missing closing parenthesis")
          position++
        }
        return booleanOf(clauses)
      })

    if (tokens.length === 0) return matchNone
    return yield* parseBoolean(undefined, false)
  })

/** Lucene's QueryParserBase.addClause: how conjunctions and modifiers set each clause's occurrence. */
const addClause = (
  clauses: Array<{ occur: Occur; query: Query }>,
  conjunction: Conjunction,
  modifier: Modifier,
  query: Query,
  operator: "and" | "or"
) => {
  const previous = clauses[clauses.length - 1]
  if (previous !== undefined && conjunction === "and" && previous.occur !== "mustNot") previous.occur = "must"
  if (previous !== undefined && operator === "and" && conjunction === "or" && previous.occur !== "mustNot") previous.occur = "should"
  const prohibited = modifier === "prohibited"
  const required =
    operator === "or" ? modifier === "required" || (conjunction === "and" && !prohibited) : !prohibited && conjunction !== "or"
  clauses.push({ occur: prohibited ? "mustNot" : required ? "must" : "should", query })
}

/** A clause list as a bool query; only prohibited clauses mean "everything but" (ES adds a match_all). */
const booleanOf = (clauses: ReadonlyArray<{ occur: Occur; query: Query }>): Query => {
  if (clauses.length === 1 && clauses[0]!.occur !== "mustNot") return clauses[0]!.query
  const of = (occur: Occur) => clauses.filter((clause) => clause.occur === occur).map((clause) => clause.query)
  return bool({ must: of("must"), should: of("should"), mustNot: of("mustNot") })
}

/** Fuzziness AUTO: exact up to 2 characters, one edit up to 5, two beyond. */
export const autoFuzziness = (term: string) => (term.length <= 2 ? 0 : term.length <= 5 ? 1 : 2)

const unsupportedField = (field: string) => Effect.fail(unsupported(`field pattern ${field} in query_string`))
