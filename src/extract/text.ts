import { isAscii, isUtf8 } from "node:buffer"
import chardet from "chardet"
import { Effect } from "effect"
import iconv from "iconv-lite"
import type { ParseContext, Parser } from "./Document.ts"
import { readPrefix } from "./Source.ts"

// chardet's answers on the fixtures and on French, German, Russian and Japanese texts in legacy charsets are the
// same from 1 KB as from 64 KB, while its time grows with the sample: 2 ms at 8 KB against 23 ms at 64 KB.
const detectionSample = 8 * 1024

/** Java's spelling of a charset name, which the reference's `contentEncoding` shows. */
const charsetName = (name: string) => {
  const lower = name.toLowerCase()
  if (lower.startsWith("windows-")) return lower
  if (lower === "shift_jis") return "Shift_JIS"
  if (lower === "big5") return "Big5"
  return name.toUpperCase()
}

const bomCharset = (bytes: Uint8Array): string | undefined => {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return "UTF-8"
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return "UTF-16LE"
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return "UTF-16BE"
  return undefined
}

/**
 * The bytes without a UTF-8 sequence cut at their end: a text read up to a byte cap may stop inside a character,
 * which must not make valid UTF-8 look invalid.
 */
const withoutCutSequence = (bytes: Uint8Array) => {
  // A sequence is at most 4 bytes, so a cut one has its lead byte among the last 3.
  for (let back = 1; back <= Math.min(3, bytes.length); back++) {
    const byte = bytes[bytes.length - back] ?? 0
    if (byte < 0x80) return bytes
    if (byte >= 0xc0) {
      const length = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : 2
      return length > back ? bytes.subarray(0, bytes.length - back) : bytes
    }
  }
  return bytes
}

const usable = (name: string | undefined) => (name !== undefined && iconv.encodingExists(name) ? name : undefined)

/** How a charset was told; the tests check that detection is skipped where it is not needed. */
export type CharsetSource = "bom" | "declared" | "ascii" | "utf-8" | "detected"

/**
 * The charset of the bytes, cheapest answer first: a byte-order mark, the charset the container declares, pure ASCII
 * (reported as Latin-1, as Tika does), valid UTF-8 (a native check, far cheaper than detection), and only then
 * chardet's statistics on a sample (UTF-8 when it cannot tell).
 */
export const textCharset = (bytes: Uint8Array, declared?: string): { readonly encoding: string; readonly source: CharsetSource } => {
  const bom = bomCharset(bytes)
  if (bom !== undefined) return { encoding: bom, source: "bom" }
  const fromDeclaration = usable(declared)
  if (fromDeclaration !== undefined) return { encoding: fromDeclaration, source: "declared" }
  if (isAscii(bytes)) return { encoding: "ISO-8859-1", source: "ascii" }
  if (isUtf8(withoutCutSequence(bytes))) return { encoding: "UTF-8", source: "utf-8" }
  return { encoding: usable(chardet.detect(bytes.subarray(0, detectionSample)) ?? undefined) ?? "UTF-8", source: "detected" }
}

/** Decodes text in the charset `textCharset` tells. */
export const decodeText = (bytes: Uint8Array, declared?: string): { text: string; encoding: string } => {
  const { encoding } = textCharset(bytes, declared)
  // iconv-lite strips a byte-order mark by default. The Buffer is a view of the same memory, not a copy.
  return { text: iconv.decode(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), encoding), encoding: charsetName(encoding) }
}

/** The charset an XML document names in its declaration (`<?xml version="1.0" encoding="…"?>`). */
export const xmlDeclaredCharset = (bytes: Uint8Array) => {
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, 256)).toString("latin1")
  return /^<\?xml[^>]*?\sencoding\s*=\s*["']([A-Za-z0-9_.:-]+)["']/.exec(head)?.[1]
}

/** Bytes worth reading: a content cut at maxContentLength characters needs at most 4 bytes a character. */
export const textByteCap = (context: Pick<ParseContext, "options" | "limits">) =>
  context.options.maxContentLength >= 0
    ? Math.min(context.limits.maxTextBytes, context.options.maxContentLength * 4 + 1024)
    : context.limits.maxTextBytes

/** Plain text, CSV, JSON, XML and other text formats: their text is the content, in the declared or detected charset. */
export const extractPlainText: Parser = (source, context) =>
  readPrefix(source, textByteCap(context)).pipe(Effect.map((bytes) => decodeText(bytes, xmlDeclaredCharset(bytes))))
