import { Effect } from "effect"
import { compile, type HtmlToTextOptions } from "html-to-text"
import type { Parser } from "./Document.ts"
import { failedTo } from "./ExtractErrors.ts"
import { readAll } from "./Source.ts"
import { decodeText } from "./text.ts"

// Searchable text, not a terminal rendering: no wrapping, no upper-cased headings, no link targets or images.
const options: HtmlToTextOptions = {
  wordwrap: false,
  selectors: [
    { selector: "a", options: { ignoreHref: true } },
    { selector: "img", format: "skip" },
    { selector: "h1", options: { uppercase: false } },
    { selector: "h2", options: { uppercase: false } },
    { selector: "h3", options: { uppercase: false } },
    { selector: "h4", options: { uppercase: false } },
    { selector: "h5", options: { uppercase: false } },
    { selector: "h6", options: { uppercase: false } },
    { selector: "table", options: { uppercaseHeaderCells: false } }
  ]
}

// Compiled once: `convert` compiles its options on every call, which costs more than converting a small page.
const convert = compile(options)

export const htmlToText = (html: string) => Effect.try({ try: () => convert(html), catch: failedTo("cannot convert the HTML") })

const entities: Readonly<Record<string, string>> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: " " }
const unescape = (text: string) =>
  text
    .replace(/&(amp|lt|gt|quot|apos|nbsp);/g, (_, name: string) => entities[name] ?? "")
    .replace(/&#(x?)([0-9a-f]+);/gi, (_, hex: string, digits: string) => String.fromCodePoint(parseInt(digits, hex === "" ? 10 : 16)))
    .trim()

/** The charset a page declares for itself in its head. */
const declaredCharset = (head: string) => /<meta[^>]+charset\s*=\s*["']?([A-Za-z0-9_:.-]+)/i.exec(head)?.[1]

const attribute = (tag: string, name: string) =>
  new RegExp(`\\s${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)'|([^\\s>]+))`, "i")
    .exec(tag)
    ?.slice(1)
    .find((value) => value !== undefined)

/** `<title>` and named `<meta>` tags, under the names Tika gives them (meta names as written). */
const headMetadata = (html: string) => {
  const metadata: Record<string, string> = {}
  const bodyAt = html.search(/<body[\s>]/i)
  const head = bodyAt < 0 ? html : html.slice(0, bodyAt)
  const title = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(head)?.[1]
  if (title !== undefined && unescape(title) !== "") {
    metadata["dc:title"] = unescape(title)
    metadata["title"] = unescape(title)
  }
  for (const tag of head.match(/<meta\s[^>]*>/gi) ?? []) {
    const name = attribute(tag, "name")
    const content = attribute(tag, "content")
    if (name !== undefined && content !== undefined && unescape(content) !== "") metadata[name] = unescape(content)
  }
  if (metadata["author"] !== undefined) metadata["dc:creator"] = metadata["author"]
  return metadata
}

export const extractHtml: Parser = (source, context) =>
  Effect.gen(function* () {
    const bytes = yield* readAll(source, context.limits.maxFileBytes)
    // A view of the bytes, not a copy.
    const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, 4096)).toString("latin1")
    const { text: html, encoding } = decodeText(bytes, declaredCharset(head))
    return { text: yield* htmlToText(html), encoding, metadata: headMetadata(html) }
  })
