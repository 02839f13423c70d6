/**
 * PostgreSQL text cannot hold NUL: a value carrying one (in a string or an object key, at any depth) is refused
 * where it comes in, with a 400, instead of failing its statement with a 500.
 */
export const holdsNul = (value: unknown): boolean =>
  typeof value === "string"
    ? value.includes("\0")
    : Array.isArray(value)
      ? value.some(holdsNul)
      : typeof value === "object" && value !== null
        ? Object.entries(value).some(([key, child]) => key.includes("\0") || holdsNul(child))
        : false

export const nulRefusal = "NUL characters are not supported"
