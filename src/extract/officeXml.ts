import { Effect } from "effect"
import { walkXml } from "./Xml.ts"

/** Text of the XML parts of spreadsheet, presentation and OpenDocument packages, laid out as Tika does. */

/** The shared string table of a workbook: one entry per `<si>`, its runs joined. */
export const sharedStrings = (xml: string) =>
  Effect.gen(function* () {
    const strings: Array<string> = []
    let current: string | undefined
    let inText = false
    yield* walkXml(xml, {
      open: (name) => {
        if (name === "si") current = ""
        else if (name === "t") inText = true
      },
      text: (text) => {
        if (inText && current !== undefined) current += text
      },
      close: (name) => {
        if (name === "t") inText = false
        else if (name === "si" && current !== undefined) {
          strings.push(current)
          current = undefined
        }
      }
    })
    return strings
  })

/** Sheet names in workbook order with the part each is stored in. */
export const workbookSheets = (workbook: string, relationships: string) =>
  Effect.gen(function* () {
    const targets = new Map<string, string>()
    yield* walkXml(relationships, {
      open: (name, attributes) => {
        if (name === "Relationship" && attributes["Id"] !== undefined && attributes["Target"] !== undefined)
          targets.set(attributes["Id"], attributes["Target"].replace(/^\/?(xl\/)?/, "xl/"))
      }
    })
    const sheets: Array<{ name: string; part: string }> = []
    yield* walkXml(workbook, {
      open: (name, attributes) => {
        const part = targets.get(attributes["r:id"] ?? "")
        if (name === "sheet" && part !== undefined) sheets.push({ name: attributes["name"] ?? "", part })
      }
    })
    return sheets
  })

/** One line per row, cells separated by tabs; shared strings resolved. */
export const sheetText = (xml: string, strings: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const rows: Array<string> = []
    let cells: Array<string> = []
    let cellType = ""
    let value = ""
    let inValue = false
    yield* walkXml(xml, {
      open: (name, attributes) => {
        if (name === "row") cells = []
        else if (name === "c") {
          cellType = attributes["t"] ?? "n"
          value = ""
        } else if (name === "v" || name === "t") inValue = true
      },
      text: (text) => {
        if (inValue) value += text
      },
      close: (name) => {
        if (name === "v" || name === "t") inValue = false
        else if (name === "c") cells.push(cellType === "s" ? (strings[Number(value)] ?? "") : value)
        else if (name === "row") rows.push(cells.join("\t"))
      }
    })
    return rows.join("\n")
  })

/** The paragraphs (`<a:p>`) of a slide, one a line. */
export const slideText = (xml: string) =>
  Effect.gen(function* () {
    const paragraphs: Array<string> = []
    let paragraph = ""
    let inText = false
    yield* walkXml(xml, {
      open: (name) => {
        if (name === "a:p") paragraph = ""
        else if (name === "a:t") inText = true
        else if (name === "a:br") paragraph += "\n"
      },
      text: (text) => {
        if (inText) paragraph += text
      },
      close: (name) => {
        if (name === "a:t") inText = false
        else if (name === "a:p" && paragraph.trim() !== "") paragraphs.push(paragraph)
      }
    })
    return paragraphs.join("\n")
  })

/** The body of an OpenDocument `content.xml`: paragraphs and headings a line each, table cells tab-separated. */
export const odfText = (xml: string) =>
  Effect.gen(function* () {
    let text = ""
    let inBody = false
    let paragraphDepth = 0
    yield* walkXml(xml, {
      open: (name, attributes) => {
        if (name === "office:body") inBody = true
        else if (name === "text:p" || name === "text:h") paragraphDepth++
        else if (!inBody || paragraphDepth === 0) return
        else if (name === "text:s") text += " ".repeat(Math.max(1, Number(attributes["text:c"] ?? "1") || 1))
        else if (name === "text:tab") text += "\t"
        else if (name === "text:line-break") text += "\n"
      },
      text: (chunk) => {
        if (inBody && paragraphDepth > 0) text += chunk
      },
      close: (name) => {
        if (name === "office:body") inBody = false
        else if (name === "text:p" || name === "text:h") {
          paragraphDepth--
          if (paragraphDepth === 0) text += "\n"
        } else if (name === "table:table-cell") text = `${text.replace(/\n$/, "")}\t`
        else if (name === "table:table-row") text = `${text.replace(/\t$/, "")}\n`
      }
    })
    return text
  })
