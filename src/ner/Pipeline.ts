import { HttpApiSchema } from "@effect/platform"
import { Schema } from "effect"
import { type Category, namedEntityId, type NamedEntity, normalizeMention } from "./NamedEntity.ts"

/** One mention found in a text, at a character offset. */
export interface Annotation {
  readonly mention: string
  readonly category: Category
  readonly offset: number
}

/** A named-entity pipeline: a pure function of the text, running offline in this process. */
export interface NerPipeline {
  /** The reference's pipeline name, written to `extractor` and `nerTags`. */
  readonly name: string
  /** Whether the pipeline reads texts of that language (an enum name: ENGLISH, FRENCH…). */
  readonly supports: (language: string) => boolean
  /** Longest text given to findAnnotations at once; longer texts are cut into pieces. */
  readonly chunkLength: number
  /** Longest text one `POST /api/ner/findNames` request may give it: about a second or two of its work. */
  readonly maxRequestLength: number
  /**
   * Whether it runs on the worker threads of NerPool: a slow pipeline does, so that it never holds the event loop; a
   * fast one runs in this thread, where it costs less than sending the texts to a worker and starting one.
   */
  readonly onWorkers: boolean
  readonly findAnnotations: (text: string) => ReadonlyArray<Annotation>
  /** Mentions found outside the content (e-mail headers), at offset -1 as in the reference. */
  readonly findInMetadata?: (document: DocumentFields) => ReadonlyArray<Annotation>
}

/** What a pipeline may read of a document besides its content. */
export interface DocumentFields {
  readonly content: string
  readonly contentType: string
  readonly metadata: Readonly<Record<string, string>>
}

/** A pipeline name that no registered pipeline answers to. */
export class UnknownPipeline extends Schema.TaggedError<UnknownPipeline>()(
  "UnknownPipeline",
  { name: Schema.String, available: Schema.Array(Schema.String) },
  HttpApiSchema.annotations({ status: 400 })
) {
  override get message() {
    return `unknown pipeline ${JSON.stringify(this.name)}; available pipelines: ${this.available.join(", ")}`
  }
}

/**
 * The entities of one document, as the reference stores them: one per distinct (mention, category), with every
 * offset of that mention in ascending order.
 */
export const entitiesOf = (
  annotations: ReadonlyArray<Annotation>,
  document: { readonly id: string; readonly rootDocument: string; readonly language: string },
  extractor: string
): ReadonlyArray<NamedEntity> => {
  const grouped = new Map<string, { mention: string; category: Category; offsets: Array<number> }>()
  for (const annotation of annotations) {
    const key = `${annotation.category}\0${annotation.mention}`
    const group = grouped.get(key) ?? { mention: annotation.mention, category: annotation.category, offsets: [] }
    group.offsets.push(annotation.offset)
    grouped.set(key, group)
  }
  return [...grouped.values()].map(({ mention, category, offsets }) => {
    const sorted = [...new Set(offsets)].sort((a, b) => a - b)
    const mentionNorm = normalizeMention(mention)
    return {
      id: namedEntityId(document.id, sorted, extractor, mentionNorm),
      documentId: document.id,
      rootDocument: document.rootDocument,
      mention,
      mentionNorm,
      mentionNormTextLength: mentionNorm.length,
      category,
      offsets: sorted,
      extractor,
      extractorLanguage: document.language,
      isHidden: false,
      partsOfSpeech: null
    }
  })
}
