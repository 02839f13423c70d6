import { Effect } from "effect"
import { SaxesParser } from "saxes"
import { failedTo } from "./ExtractErrors.ts"

/** Streaming XML walking (saxes) for the parts of office packages: no DOM, so memory follows the text. */

export interface XmlHandlers {
  readonly open?: (name: string, attributes: Readonly<Record<string, string>>) => void
  readonly close?: (name: string) => void
  readonly text?: (text: string) => void
}

export const walkXml = (xml: string, handlers: XmlHandlers) =>
  Effect.try({
    try: () => {
      const parser = new SaxesParser({ position: false, xmlns: false })
      const { open, close, text } = handlers
      if (open !== undefined) parser.on("opentag", (tag) => open(tag.name, tag.attributes))
      if (close !== undefined) parser.on("closetag", (tag) => close(tag.name))
      if (text !== undefined) {
        parser.on("text", text)
        parser.on("cdata", text)
      }
      parser.write(xml).close()
    },
    catch: failedTo("malformed XML")
  })

/** The text of the first element of each of these names (`dc:title`, `cp:lastModifiedBy`…). */
export const xmlFields = (xml: string, names: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const wanted = new Set(names)
    const fields: Record<string, string> = {}
    let current: string | undefined
    let buffer = ""
    yield* walkXml(xml, {
      open: (name) => {
        if (wanted.has(name) && fields[name] === undefined) {
          current = name
          buffer = ""
        }
      },
      text: (text) => {
        if (current !== undefined) buffer += text
      },
      close: (name) => {
        if (name === current) {
          fields[name] = buffer.trim()
          current = undefined
        }
      }
    })
    return fields
  })
