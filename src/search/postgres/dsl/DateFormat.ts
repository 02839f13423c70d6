import { Effect } from "effect"
import type { Interval } from "./Ast.ts"
import { illegalArgument, unsupported } from "./Errors.ts"

/** The date formats date_histogram keys are written with (`yyyy`, `yyyy-MM`, `yyyy-MM-dd`… of Java's patterns). */

const tokenPattern = /yyyy|MM|dd|HH|mm|ss|SSS|'[^']*'|[-/:. TZ]/g

/** Checks a format is made of the pattern letters supported here. */
export const checkFormat = (format: string) =>
  format.replace(tokenPattern, "") === "" ? Effect.succeed(format) : Effect.fail(unsupported(`date format ${format}`))

const pad = (value: number, width: number) => String(value).padStart(width, "0")

/** Epoch milliseconds written with a format, in UTC; ISO-8601 with milliseconds without one. */
export const formatDate = (millis: number, format: string | undefined) => {
  const date = new Date(millis)
  if (format === undefined) return date.toISOString()
  return format.replace(tokenPattern, (token) => {
    switch (token) {
      case "yyyy":
        return pad(date.getUTCFullYear(), 4)
      case "MM":
        return pad(date.getUTCMonth() + 1, 2)
      case "dd":
        return pad(date.getUTCDate(), 2)
      case "HH":
        return pad(date.getUTCHours(), 2)
      case "mm":
        return pad(date.getUTCMinutes(), 2)
      case "ss":
        return pad(date.getUTCSeconds(), 2)
      case "SSS":
        return pad(date.getUTCMilliseconds(), 3)
      default:
        return token.startsWith("'") ? token.slice(1, -1) : token
    }
  })
}

/** A date written with a format (the `missing` value of a histogram), back to epoch milliseconds. */
export const parseFormatted = (text: string, format: string | undefined) =>
  Effect.gen(function* () {
    const iso = /^\d{4}$/.test(text) ? `${text}-01-01` : /^\d{4}-\d{2}$/.test(text) ? `${text}-01` : text
    const millis =
      /^-?\d+$/.test(text) && format === undefined ? Number(text) : Date.parse(/T|Z|[+-]\d{2}:\d{2}$/.test(iso) ? iso : `${iso}T00:00:00Z`)
    if (Number.isNaN(millis))
      return yield* illegalArgument(`failed to parse date field [${text}] with format [${format ?? "strict_date_optional_time"}]`)
    return millis
  })

/** The start of the bucket holding a date, as PostgreSQL's date_trunc (weeks start on Monday) does in SQL. */
export const bucketStart = (millis: number, interval: Interval) => {
  if (interval._tag === "Fixed") return Math.floor(millis / interval.millis) * interval.millis
  const date = new Date(millis)
  const [year, month, day] = [date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate()]
  switch (interval.unit) {
    case "year":
      return Date.UTC(year, 0)
    case "quarter":
      return Date.UTC(year, month - (month % 3))
    case "month":
      return Date.UTC(year, month)
    case "week":
      return Date.UTC(year, month, day) - ((date.getUTCDay() + 6) % 7) * 86_400_000
    case "day":
      return Date.UTC(year, month, day)
    case "hour":
      return Math.floor(millis / 3_600_000) * 3_600_000
    case "minute":
      return Math.floor(millis / 60_000) * 60_000
    case "second":
      return Math.floor(millis / 1_000) * 1_000
  }
}

/** The start of the next bucket. */
export const nextBucket = (start: number, interval: Interval) => {
  if (interval._tag === "Fixed") return start + interval.millis
  const date = new Date(start)
  const months = { year: 12, quarter: 3, month: 1 } as const
  if (interval.unit in months) return Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + months[interval.unit as keyof typeof months])
  const lengths = { week: 604_800_000, day: 86_400_000, hour: 3_600_000, minute: 60_000, second: 1_000 } as const
  return start + lengths[interval.unit as keyof typeof lengths]
}
