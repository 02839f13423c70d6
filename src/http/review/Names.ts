/** Field names travel camelCase in documents and may be sent snake_case; these convert between the two. */
export const toCamel = (name: string) => name.replace(/_([a-z0-9])/g, (_, letter: string) => letter.toUpperCase())

export const toSnake = (name: string) => name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`)

/** A filter or sort path in the reference's spelling: snake_case segments joined by `__` (`.` accepted too). */
export const normalisePath = (path: string) => path.split(/\.|__/).map(toSnake).join("__")

/** An include path as camelCase segments joined by dots. */
export const normaliseInclude = (path: string) => path.split(".").map(toCamel).join(".")
