import chardet from "chardet"
import { Effect } from "effect"
import iconv from "iconv-lite"
import type { ParseContext, Parser } from "./Document.ts"
import { readPrefix } from "./Source.ts"

// chardet's statistics settle within this many bytes; detecting over a whole large file only costs time.
const detectionSample = 64 * 1024

/** Java's spelling of a charset name, which the reference's `contentEncoding` shows. */
const charsetName = (name: string) => {
  const lower = name.toLowerCase()
  if (lower.startsWith("windows-")) return lower
  if (lower === "shift_jis") return "Shift_JIS"
  if (lower === "big5") return "Big5"
  return name.toUpperCase()
}

// Tika reports text without any byte above 0x7F as Latin-1; chardet guesses among Latin charsets there.
const isAscii = (bytes: Uint8Array) => bytes.every((byte) => byte < 0x80)

const bomCharset = (bytes: Uint8Array): string | undefined => {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return "UTF-8"
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return "UTF-16LE"
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return "UTF-16BE"
  return undefined
}

/**
 * Decodes text in the charset declared by the container when it is known, else the byte-order mark's, else
 * the detected one (UTF-8 when nothing can be told).
 */
export const decodeText = (bytes: Uint8Array, declared?: string): { text: string; encoding: string } => {
  const usable = (name: string | undefined) => (name !== undefined && iconv.encodingExists(name) ? name : undefined)
  const sample = bytes.subarray(0, detectionSample)
  const detected = isAscii(sample) ? "ISO-8859-1" : chardet.detect(sample)
  const encoding = usable(declared) ?? bomCharset(bytes) ?? usable(detected ?? undefined) ?? "UTF-8"
  // iconv-lite strips a byte-order mark by default.
  return { text: iconv.decode(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), encoding), encoding: charsetName(encoding) }
}

/** Bytes worth reading: a content cut at maxContentLength characters needs at most 4 bytes a character. */
export const textByteCap = (context: ParseContext) =>
  context.options.maxContentLength >= 0
    ? Math.min(context.limits.maxTextBytes, context.options.maxContentLength * 4 + 1024)
    : context.limits.maxTextBytes

/** Plain text, CSV, JSON, XML and other text formats: their text is the content, in the detected charset. */
export const extractPlainText: Parser = (source, context) =>
  readPrefix(source, textByteCap(context)).pipe(Effect.map((bytes) => decodeText(bytes)))
