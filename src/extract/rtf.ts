import { Effect } from "effect"
import iconv from "iconv-lite"
import type { Parser } from "./Document.ts"
import { documentMetadata } from "./Metadata.ts"
import { readAll } from "./Source.ts"

/**
 * RTF text by a small tokenizer: the npm RTF packages render to HTML through unmaintained code, and text
 * only needs groups, control words, hex escapes (in the document's code page) and `\u` characters.
 */

// Groups whose content is no document text: tables, pictures, embedded objects, headers and footers.
const skipped = new Set([
  "fonttbl",
  "colortbl",
  "stylesheet",
  "listtable",
  "listoverridetable",
  "pict",
  "object",
  "objdata",
  "themedata",
  "datastore",
  "latentstyles",
  "rsidtbl",
  "xmlnstbl",
  "generator",
  "filetbl",
  "revtbl",
  "fldinst",
  "nonshppict",
  "shp",
  "mmathPr",
  "pgdsctbl",
  "listtext",
  "pntext",
  "header",
  "footer",
  "headerl",
  "headerr",
  "footerl",
  "footerr"
])
const infoFields = new Set(["title", "author", "operator", "subject", "keywords", "company", "creatim", "revtim"])
const symbols: Readonly<Record<string, string>> = {
  par: "\n",
  line: "\n",
  sect: "\n",
  page: "\n",
  row: "\n",
  tab: "\t",
  cell: "\t",
  emdash: "\u2014",
  endash: "\u2013",
  lquote: "\u2018",
  rquote: "\u2019",
  ldblquote: "\u201c",
  rdblquote: "\u201d",
  bullet: "\u2022",
  emspace: " ",
  enspace: " "
}

interface GroupState {
  skip: boolean
  info: boolean
  field: string | undefined
  unicodeSkip: number
}

export const rtfToText = (rtf: string) => {
  const fields: Record<string, string> = {}
  const dates: Record<string, Record<string, number>> = {}
  const stack: Array<GroupState> = []
  let state: GroupState = { skip: false, info: false, field: undefined, unicodeSkip: 1 }
  let codepage = "windows-1252"
  let out = ""
  let pendingBytes: Array<number> = []
  let toSkip = 0

  const write = (text: string) => {
    if (state.skip || text === "") return
    if (state.field !== undefined) fields[state.field] = (fields[state.field] ?? "") + text
    else if (!state.info) out += text
  }
  const flush = () => {
    if (pendingBytes.length === 0) return
    const bytes = Buffer.from(pendingBytes)
    pendingBytes = []
    write(iconv.encodingExists(codepage) ? iconv.decode(bytes, codepage) : bytes.toString("latin1"))
  }
  const emit = (text: string) => {
    flush()
    if (toSkip > 0) toSkip--
    else write(text)
  }
  const controlWord = (word: string, parameter: number | undefined) => {
    if (word === "ansicpg" && parameter !== undefined) codepage = `windows-${parameter}`
    else if (word === "u" && parameter !== undefined) {
      emit(String.fromCharCode(parameter < 0 ? parameter + 65536 : parameter))
      toSkip = state.unicodeSkip
    } else if (word === "uc" && parameter !== undefined) state.unicodeSkip = parameter
    else if (word === "info") state.info = true
    else if (state.info && infoFields.has(word)) state.field = word
    else if (state.field !== undefined && /^(yr|mo|dy|hr|min)$/.test(word) && parameter !== undefined)
      (dates[state.field] ??= {})[word] = parameter
    else if (skipped.has(word)) state.skip = true
    else if (symbols[word] !== undefined) emit(symbols[word])
  }

  let i = 0
  while (i < rtf.length) {
    const char = rtf[i]
    if (char === "{") {
      flush()
      stack.push(state)
      state = { ...state }
      i++
    } else if (char === "}") {
      flush()
      state = stack.pop() ?? state
      i++
    } else if (char === "\\") {
      const next = rtf[i + 1] ?? ""
      const word = /^([a-zA-Z]{1,32})(-?\d{1,10})? ?/.exec(rtf.slice(i + 1, i + 48))
      if (word !== null) {
        const parameter = word[2] === undefined ? undefined : Number(word[2])
        i += 1 + word[0].length
        // Binary data follows \binN: skip it whole.
        if (word[1] === "bin") i += parameter ?? 0
        else {
          if (word[1] !== "u") flush()
          controlWord(word[1] ?? "", parameter)
        }
      } else if (next === "'") {
        if (toSkip > 0) toSkip--
        else pendingBytes.push(parseInt(rtf.slice(i + 2, i + 4), 16) || 0x3f)
        i += 4
      } else {
        if (next === "*") state.skip = true
        else if (next === "\\" || next === "{" || next === "}") emit(next)
        else if (next === "~") emit("\u00a0")
        else if (next === "_") emit("-")
        else if (next === "\n" || next === "\r") emit("\n")
        i += 2
      }
    } else {
      if (char !== "\n" && char !== "\r") emit(char ?? "")
      i++
    }
  }
  flush()
  const date = (field: string) => {
    const parts = dates[field]
    return parts?.["yr"] === undefined
      ? undefined
      : new Date(Date.UTC(parts["yr"], (parts["mo"] ?? 1) - 1, parts["dy"] ?? 1, parts["hr"] ?? 0, parts["min"] ?? 0))
  }
  const metadata = documentMetadata({
    title: fields["title"],
    author: fields["author"],
    lastAuthor: fields["operator"],
    subject: fields["subject"],
    keywords: fields["keywords"],
    created: date("creatim"),
    modified: date("revtim")
  })
  return { text: out, metadata }
}

export const extractRtf: Parser = (source, context) =>
  readAll(source, context.limits.maxFileBytes).pipe(Effect.map((bytes) => rtfToText(Buffer.from(bytes).toString("latin1"))))
