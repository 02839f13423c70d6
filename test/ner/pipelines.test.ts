import { createHash } from "node:crypto"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import { compromisePipeline } from "../../src/ner/CompromisePipeline.ts"
import { emailPipeline } from "../../src/ner/EmailPipeline.ts"
import { namedEntityId, normalizeMention } from "../../src/ner/NamedEntity.ts"
import { annotate, annotateDocument, chunksOf } from "../../src/ner/Annotate.ts"
import { entitiesOf } from "../../src/ner/Pipeline.ts"
import { pipelineNamed, pipelineNames } from "../../src/ner/Pipelines.ts"

const sha384 = (text: string) => createHash("sha384").update(text).digest("hex")

/**
 * A small hand-labelled sample (news-style sentences) for the PERSON/ORGANIZATION/LOCATION pipeline. compromise was
 * chosen because it is the only well-kept NLP library on npm that ships its model inside the package and finds all
 * three categories offline (wink-nlp finds no persons; transformer packages download weights at run time).
 */
const sample: ReadonlyArray<{ text: string; gold: ReadonlyArray<string> }> = [
  { text: "Barack Obama met Angela Merkel in Berlin on Monday.", gold: ["PERSON Barack Obama", "PERSON Angela Merkel", "LOCATION Berlin"] },
  {
    text: "The United Nations said Microsoft Corporation will open an office in Nairobi.",
    gold: ["ORGANIZATION United Nations", "ORGANIZATION Microsoft Corporation", "LOCATION Nairobi"]
  },
  {
    text: "John Smith moved from Paris, France to Toronto last year.",
    gold: ["PERSON John Smith", "LOCATION Paris", "LOCATION France", "LOCATION Toronto"]
  },
  {
    text: "Emmanuel Macron spoke with reporters in London before flying to Washington.",
    gold: ["PERSON Emmanuel Macron", "LOCATION London", "LOCATION Washington"]
  },
  {
    text: "Shares of Apple Inc. fell after Tim Cook announced the results in California.",
    gold: ["ORGANIZATION Apple Inc", "PERSON Tim Cook", "LOCATION California"]
  },
  {
    text: "Maria Garcia works for the World Health Organization in Geneva.",
    gold: ["PERSON Maria Garcia", "ORGANIZATION World Health Organization", "LOCATION Geneva"]
  },
  {
    text: "The Federal Bureau of Investigation questioned Michael Brown in Chicago.",
    gold: ["ORGANIZATION Federal Bureau of Investigation", "PERSON Michael Brown", "LOCATION Chicago"]
  },
  { text: "Vladimir Putin and Xi Jinping met in Moscow.", gold: ["PERSON Vladimir Putin", "PERSON Xi Jinping", "LOCATION Moscow"] },
  {
    text: "Sarah Johnson, a lawyer at Goldman Sachs, lives in New York.",
    gold: ["PERSON Sarah Johnson", "ORGANIZATION Goldman Sachs", "LOCATION New York"]
  },
  {
    text: "Officials in Madrid and Lisbon contacted the European Commission.",
    gold: ["LOCATION Madrid", "LOCATION Lisbon", "ORGANIZATION European Commission"]
  }
]

describe("named-entity pipelines", () => {
  it("entity ids are the reference's SHA-384 of documentId|[offsets]|extractor|mentionNorm", () => {
    expect(namedEntityId("doc1", [21], "EMAIL", "foo@bar.com")).toBe(sha384("doc1|[21]|EMAIL|foo@bar.com"))
    expect(namedEntityId("d", [3, 40], "CORENLP", "john smith")).toBe(sha384("d|[3, 40]|CORENLP|john smith"))
    expect(namedEntityId("d", [3, 40], "CORENLP", "john smith")).toHaveLength(96)
  })

  it("mentionNorm is transliterated to ASCII, trimmed, whitespace-collapsed and lower-cased", () => {
    expect(normalizeMention("  Zoë   Ångström\tMüller ")).toBe("zoe angstrom muller")
    expect(normalizeMention("Straße Łódź")).toBe("strasse lodz")
    expect(normalizeMention("Foo@Bar.COM")).toBe("foo@bar.com")
  })

  it("EMAIL finds lower-case addresses only, at their offsets, one entity per mention with all its offsets", () => {
    const text = "Write to foo@bar.com or to Alice@Example.com, again foo@bar.com. Not user@localhost nor a@b.c1.\nx.y+z@mail.example.org."
    const annotations = annotate(emailPipeline, text)
    expect(annotations.map((a) => a.mention)).toStrictEqual(["foo@bar.com", "foo@bar.com", "x.y+z@mail.example.org"])
    for (const annotation of annotations)
      expect(text.slice(annotation.offset, annotation.offset + annotation.mention.length)).toBe(annotation.mention)
    const entities = entitiesOf(annotations, { id: "doc", rootDocument: "root", language: "ENGLISH" }, "EMAIL")
    expect(entities).toHaveLength(2)
    expect(entities[0]).toStrictEqual({
      id: sha384("doc|[9, 52]|EMAIL|foo@bar.com"),
      documentId: "doc",
      rootDocument: "root",
      mention: "foo@bar.com",
      mentionNorm: "foo@bar.com",
      mentionNormTextLength: 11,
      category: "EMAIL",
      offsets: [9, 52],
      extractor: "EMAIL",
      extractorLanguage: "ENGLISH",
      isHidden: false,
      partsOfSpeech: null
    })
  })

  it("EMAIL reads the address headers of e-mail messages, at offset -1, and only of e-mail messages", () => {
    const metadata = {
      tika_metadata_message_from: "Alice <alice@example.org>",
      tika_metadata_message_from_email: "alice@example.org",
      tika_metadata_message_to: "bob@example.com, carol@example.com",
      tika_metadata_message_raw_header_reply_to: "replies@example.org",
      tika_metadata_subject: "about dave@example.org"
    }
    const content = "Hi bob@example.com"
    const annotations = annotateDocument(emailPipeline, { content, contentType: "message/rfc822", metadata })
    const entities = entitiesOf(annotations, { id: "mail", rootDocument: "mail", language: "ENGLISH" }, "EMAIL")
    expect(entities.map((entity) => [entity.mention, entity.offsets])).toStrictEqual([
      ["alice@example.org", [-1]],
      ["bob@example.com", [-1, 3]],
      ["carol@example.com", [-1]],
      ["replies@example.org", [-1]]
    ])
    expect(entities[1]!.id).toBe(sha384("mail|[-1, 3]|EMAIL|bob@example.com"))
    expect(annotateDocument(emailPipeline, { content, contentType: "text/plain", metadata })).toStrictEqual([
      { mention: "bob@example.com", category: "EMAIL", offset: 3 }
    ])
  })

  it("long texts are read in pieces cut at spaces, offsets counted from the start of the whole text", () => {
    const text = Array.from({ length: 5_000 }, (_, i) => `word${i} user${i}@example.org`).join(" ")
    expect(chunksOf(text, 1_000).every((chunk) => text.slice(chunk.start, chunk.start + chunk.text.length) === chunk.text)).toBe(true)
    const annotations = annotate({ ...emailPipeline, chunkLength: 1_000 }, text)
    expect(annotations).toHaveLength(5_000)
    for (const a of annotations) expect(text.slice(a.offset, a.offset + a.mention.length)).toBe(a.mention)
  })

  it("CORENLP (compromise) finds people, organisations and places with offsets into the text", () => {
    const text = "Yesterday Barack Obama's adviser flew to Berlin."
    const annotations = annotate(compromisePipeline, text)
    expect(annotations).toContainEqual({ mention: "Barack Obama", category: "PERSON", offset: 10 })
    expect(annotations).toContainEqual({ mention: "Berlin", category: "LOCATION", offset: 41 })
    for (const a of annotations) expect(text.slice(a.offset, a.offset + a.mention.length)).toBe(a.mention)
  })

  it("CORENLP (compromise) precision and recall on a labelled sample stay above a floor", () => {
    let found = 0
    let correct = 0
    let expected = 0
    for (const { text, gold } of sample) {
      const predicted = new Set(annotate(compromisePipeline, text).map((a) => `${a.category} ${a.mention.replace(/\.$/, "")}`))
      found += predicted.size
      expected += gold.length
      correct += gold.filter((entity) => predicted.has(entity)).length
    }
    const precision = correct / found
    const recall = correct / expected
    // Measured with compromise 14.17: precision 0.97, recall 0.94 (31 of 32 gold entities); the floors leave room
    // for changes of its lexicon between versions.
    expect(precision).toBeGreaterThanOrEqual(0.85)
    expect(recall).toBeGreaterThanOrEqual(0.8)
    process.stdout.write(`NER sample: precision ${precision.toFixed(2)} recall ${recall.toFixed(2)}\n`)
  })

  it("only the pipelines that run are registered; another name is refused with the list", () =>
    Effect.gen(function* () {
      expect(pipelineNames).toStrictEqual(["EMAIL", "CORENLP"])
      expect((yield* pipelineNamed("EMAIL")).name).toBe("EMAIL")
      const exit = yield* Effect.exit(pipelineNamed("OPENNLP"))
      expect(exit).toStrictEqual(Exit.fail(expect.objectContaining({ _tag: "UnknownPipeline", name: "OPENNLP" })))
      if (Exit.isFailure(exit)) expect(String(exit.cause)).toContain("available pipelines: EMAIL, CORENLP")
    }).pipe(Effect.runPromise))
})
