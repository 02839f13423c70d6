import { randomBytes } from "node:crypto"
import { adminRole } from "../../user/User.ts"
import type { ReadContext, ResourceDefinition, Row } from "./Resource.ts"
import { booleanExact, isoText, isoTimestamp, textLookups } from "./Filters.ts"

/** First and last name from the single `name` column: the first word, then the rest. */
const nameParts = (name: unknown) => {
  const words =
    typeof name === "string"
      ? name
          .trim()
          .split(/\s+/)
          .filter((word) => word !== "")
      : []
  return { firstName: words[0] ?? "", lastName: words.slice(1).join(" ") }
}

export const userDefinition: ResourceDefinition = {
  key: "User",
  type: "User",
  selfPath: "users",
  from: "users r",
  columns: ({ sql }) =>
    sql.literal(`r.id, r.login, r.name, r.email, md5(coalesce(r.email, '')) AS "emailMd5", '${adminRole}' = ANY(r.roles) AS "isStaff",
      ${isoTimestamp("greatest(r.last_login, (SELECT max(s.created_at) FROM sessions s WHERE s.user_login = r.login))", "lastLogin")}`),
  attributes: (row: Row, context) => ({
    ...nameParts(row.name),
    username: row.login,
    email: row.email ?? "",
    emailMd5: row.emailMd5,
    isStaff: row.isStaff,
    // Administrators have every right here, as Prophecies' superusers do (its front end shows them its admin links).
    isSuperuser: row.isStaff,
    // The review API checks no CSRF token; the requester still gets one, as its front end reads it.
    csrfToken: row.id === context.user.id ? randomBytes(32).toString("hex") : null,
    lastLogin: isoText(row.lastLogin)
  }),
  filters: {
    ...textLookups("username", "r.login"),
    is_staff: booleanExact(`('${adminRole}' = ANY(r.roles))`)
  },
  sorts: { id: "r.id", username: "r.login", first_name: "r.name", last_name: "split_part(r.name, ' ', 2)" },
  search: ["r.name", "r.login"],
  defaultOrder: "r.id DESC",
  paginated: true
}

/** A user named by id or by username, as the user routes accept both. */
export const userByKey = ({ sql }: ReadContext, key: string) => (/^\d{1,9}$/.test(key) ? sql`r.id = ${Number(key)}` : sql`r.login = ${key}`)
