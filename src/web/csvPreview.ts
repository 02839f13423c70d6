import { h } from "./dom.ts"

/** The preview of a CSV file before its import: a table of its header and first rows. */

/** The first rows of a CSV text, for the preview only (the server parses and checks the whole file). */
const csvRows = (csv: string, limit: number) => {
  const rows: Array<Array<string>> = []
  let row: Array<string> = []
  let cell = ""
  let quoted = false
  const endRow = () => {
    row.push(cell)
    rows.push(row)
    row = []
    cell = ""
  }
  for (let index = 0; index < csv.length && rows.length < limit; index++) {
    const char = csv[index]!
    if (quoted && char === '"' && csv[index + 1] === '"') {
      cell += '"'
      index++
    } else if (char === '"') quoted = !quoted
    else if (quoted) cell += char
    else if (char === ",") {
      row.push(cell)
      cell = ""
    } else if (char === "\n") endRow()
    else if (char !== "\r") cell += char
  }
  if (rows.length < limit && (cell !== "" || row.length > 0)) endRow()
  return rows
}

const previewRows = 5

const previewTable = (rows: ReadonlyArray<ReadonlyArray<string>>) => {
  const [header = [], ...body] = rows
  return h(
    "div",
    { class: "table-wrap" },
    h(
      "table",
      {},
      h("caption", {}, `Preview: the first ${body.length} row${body.length === 1 ? "" : "s"}`),
      h("thead", {}, h("tr", {}, ...header.map((name) => h("th", { scope: "col" }, name)))),
      h("tbody", {}, ...body.map((cells) => h("tr", {}, ...cells.map((cell) => h("td", {}, cell)))))
    )
  )
}

/** The table of the header and first rows of `csv`. */
export const csvPreview = (csv: string) => previewTable(csvRows(csv, previewRows + 1))
