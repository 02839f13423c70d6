/**
 * RFC 4180 CSV: comma-separated, fields optionally double-quoted (quotes doubled inside, line breaks allowed),
 * rows ended by LF or CRLF. A leading UTF-8 byte-order mark is dropped. Answers the rows as string arrays.
 */
export const parseCsv = (text: string): ReadonlyArray<ReadonlyArray<string>> => {
  const source = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text
  const rows: Array<Array<string>> = []
  let row: Array<string> = []
  let field = ""
  let quoted = false
  let index = 0
  const endField = () => {
    row.push(field)
    field = ""
  }
  const endRow = () => {
    endField()
    rows.push(row)
    row = []
  }
  while (index < source.length) {
    const character = source[index]!
    if (quoted) {
      if (character === '"' && source[index + 1] === '"') {
        field += '"'
        index += 2
        continue
      }
      if (character === '"') quoted = false
      else field += character
      index += 1
      continue
    }
    if (character === '"' && field === "") quoted = true
    else if (character === ",") endField()
    else if (character === "\n") endRow()
    else if (character === "\r" && source[index + 1] === "\n") {
      endRow()
      index += 1
    } else field += character
    index += 1
  }
  if (field !== "" || row.length > 0) endRow()
  return rows
}

/** One CSV field, quoted when it needs to be. */
const csvField = (value: unknown) => {
  const text = value === null || value === undefined ? "" : typeof value === "object" ? JSON.stringify(value) : String(value)
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text
}

export const csvLine = (values: ReadonlyArray<unknown>) => `${values.map(csvField).join(",")}\r\n`
