import type { Effect } from "effect"
import type { ExtractionFailed } from "./ExtractErrors.ts"
import type { Source } from "./Source.ts"

/** Bounds that keep one file from exhausting memory, disk or time (zip bombs, huge members, hostile PDFs). */
export interface ExtractLimits {
  /** Deepest embedding level extracted; deeper documents are listed with an error and no content. */
  readonly maxDepth: number
  /** Uncompressed bytes of all embedded documents of one file, together. */
  readonly maxTotalBytes: number
  /** Archive members of one file, together. */
  readonly maxEntries: number
  /** Uncompressed/compressed ratio refused for a member larger than `ratioThresholdBytes`. */
  readonly maxRatio: number
  readonly ratioThresholdBytes: number
  /** Largest document a parser reads whole into memory (PDF, office, email, HTML). */
  readonly maxFileBytes: number
  /** Bytes of a plain text file read for its content (the rest is not read). */
  readonly maxTextBytes: number
  /** Time one parser may take on one document. */
  readonly parseTimeoutMillis: number
}

export const defaultLimits: ExtractLimits = {
  maxDepth: 8,
  maxTotalBytes: 2 * 1024 ** 3,
  maxEntries: 20_000,
  maxRatio: 100,
  ratioThresholdBytes: 1024 ** 2,
  maxFileBytes: 256 * 1024 ** 2,
  maxTextBytes: 64 * 1024 ** 2,
  parseTimeoutMillis: 120_000
}

export interface ExtractOptions {
  /** The project (index) name: it prefixes the bytes hashed into document ids. */
  readonly project: string
  /** Run OCR on images when the tesseract binary is installed. */
  readonly ocr: boolean
  /** Characters of content kept; -1 keeps all (the reference's default). */
  readonly maxContentLength: number
  /** Language forced for every document (enum name or ISO code); detected when absent. */
  readonly language?: string | undefined
  readonly limits?: Partial<ExtractLimits> | undefined
}

/** One extracted document: the fields of an indexed Document record that the extractor knows, plus its embedded documents. */
export interface ExtractedDocument {
  readonly id: string
  readonly path: string
  readonly dirname: string
  readonly content: string
  readonly contentLength: number
  readonly contentTextLength: number
  readonly contentType: string
  readonly contentEncoding: string
  readonly language: string
  readonly metadata: Readonly<Record<string, string>>
  readonly extractionDate: string
  readonly extractionLevel: number
  readonly parentDocument: string | null
  readonly rootDocument: string
  readonly tags: ReadonlyArray<string>
  /** Why the text could not be (fully) extracted; the document is indexed all the same. */
  readonly extractionError?: string
  /** Hex SHA-384 of the file bytes alone: the id of a Duplicate record. Only on roots. */
  readonly duplicateId?: string
  readonly children: ReadonlyArray<ExtractedDocument>
}

/** What a parser makes of one document; raw metadata names are Tika's (`dc:title`, `Content-Type`…). */
export interface Parsed {
  readonly text: string
  readonly metadata?: Readonly<Record<string, string>>
  /** Charset the text was decoded from (text formats only). */
  readonly encoding?: string | undefined
}

/** An embedded document a parser hands back for extraction (archive member, attachment, message). */
export interface EmbeddedInput {
  readonly source: Source
  readonly name?: string | undefined
  readonly relationshipId?: string | undefined
  /** Content type known from the container, which wins over detection (mbox messages). */
  readonly contentType?: string | undefined
}

/** Running totals shared by every document of one file, so nested archives share one budget. */
export interface Budget {
  bytes: number
  entries: number
}

export interface ParseContext {
  readonly name: string
  readonly contentType: string
  readonly depth: number
  readonly options: ExtractOptions
  readonly limits: ExtractLimits
  readonly budget: Budget
  /** A directory for spooled members, created on first use and removed with the extraction. */
  readonly tempDir: Effect.Effect<string, ExtractionFailed>
  /** Extracts an embedded document now (so its temporary file can go) and attaches it as a child. */
  readonly embed: (input: EmbeddedInput) => Effect.Effect<void>
}

export type Parser = (source: Source, context: ParseContext) => Effect.Effect<Parsed, ExtractionFailed>
